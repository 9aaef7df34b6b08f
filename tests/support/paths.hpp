#pragma once
// The checkout's root and the relforge binary under test, as absolute paths. They come from one
// file generated per build tree, not from compiler flags, so the other test objects do not depend
// on where the checkout lies and a clone elsewhere reuses them from ccache.
#include <string>

namespace relforge::test {

const std::string& source_dir();
const std::string& relforge_binary();

}  // namespace relforge::test
