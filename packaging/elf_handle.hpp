#pragma once
// A libelf handle that ends itself: std::unique_ptr<Elf> with elf_end as its deleter.
#include <libelf.h>

#include <memory>

namespace relforge::packaging {

struct ElfCloser {
  void operator()(Elf* elf) const { elf_end(elf); }
};
using ElfHandle = std::unique_ptr<Elf, ElfCloser>;

}  // namespace relforge::packaging
