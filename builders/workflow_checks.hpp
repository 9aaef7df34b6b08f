#pragma once
// What render_workflow and plan_ci check before they write anything: every option and [ci] value
// GitHub would misread (control characters, `${{`, paths outside the checkout, cron lines, secret
// names, shard and timeout ranges), and the cells' runner labels and artifact names.
#include "builders/workflow.hpp"
#include "core/error.hpp"
#include "matrix/expand.hpp"

namespace relforge::builders {

// `given` with artifact_field filled in (build_name when the cells have it, else id); invalid_input
// naming the option or cell and the fix; nothing_selected when the matrix has no cells.
Result<WorkflowOptions> checked_workflow_options(const WorkflowOptions& given,
                                                 const matrix::Expansion& expansion);

}  // namespace relforge::builders
