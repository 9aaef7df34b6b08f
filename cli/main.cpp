#include <cstdlib>
#include <iostream>

#include "cli/commands.hpp"
#include "platform/interrupt_cleanup.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  relforge::platform::install_interrupt_cleanup();
  relforge::cli::Runtime runtime{std::cout, std::cerr, std::cin,
                                 [](const std::string& name) -> std::optional<std::string> {
                                   const char* value = std::getenv(name.c_str());
                                   if (value == nullptr) return std::nullopt;
                                   return std::string(value);
                                 }};
  const int code = relforge::cli::run_cli(argc, argv, runtime);
  std::cout.flush();
  return code;
}
