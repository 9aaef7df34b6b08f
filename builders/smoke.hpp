#pragma once
// The smoke test of a built wheel: a fresh venv on the cell's interpreter, `pip install
// --no-index --no-deps`, LD_LIBRARY_PATH unset, then each configured Python check. The fresh venv
// is a copy of one `python -m venv` made once per interpreter under `venv_templates`, which
// separate runs and processes may share.
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace relforge::builders {

struct SmokeSpec {
  std::filesystem::path python;  // the cell's interpreter
  std::filesystem::path wheel;
  std::filesystem::path venv;            // recreated
  std::filesystem::path venv_templates;  // ready venvs, one per interpreter (made when missing)
  std::filesystem::path log;             // output appended here
  std::vector<std::string> checks;       // Python snippets, already filled in
  std::string path_env;
  const std::atomic<bool>* cancel = nullptr;  // when it becomes true the running step is killed
};

// io error when a step cannot start; integrity error naming the failing step and its output.
Status run_smoke_test(const SmokeSpec& spec);

// Replaces {name} with values[name] for every known name; unknown braces stay as they are.
std::string fill_template(const std::string& text, const std::map<std::string, std::string>& values);

}  // namespace relforge::builders
