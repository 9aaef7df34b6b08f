// Reading an ELF file's requirements with libelf while touching as few of its bytes as possible:
// a 1 GiB library inside a wheel is examined by inflating a few KiB at its start.
#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "packaging/elf_handle.hpp"
#include "packaging/wheel_elf_policy.hpp"

namespace relforge::packaging {
namespace {

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

class MemoryImage final : public ElfImage {
public:
  explicit MemoryImage(std::string_view bytes) : m_bytes(bytes) {}
  std::uint64_t size() const override { return m_bytes.size(); }
  // libelf only reads the buffer; the cast drops const for its API.
  char* data() override { return const_cast<char*>(m_bytes.data()); }
  Status cover_prefix(std::uint64_t) override { return {}; }
  Status cover_ranges(Ranges) override { return {}; }

private:
  std::string_view m_bytes;
};

// A fresh handle after new bytes were covered, so that nothing libelf read earlier is stale.
Result<ElfHandle> open_elf(ElfImage& image) {
  ElfHandle elf(elf_memory(image.data(), static_cast<std::size_t>(image.size())));
  if (!elf || elf_kind(elf.get()) != ELF_K_ELF)
    return fail(ErrorCategory::integrity, std::string("not a readable ELF file: ") + elf_errmsg(-1));
  return elf;
}

// The program headers, PT_DYNAMIC and the tables its entries point at (strings, version needs,
// symbols, hash tables): the loader's own view, laid out at the start of a shared library.
class DynamicScan {
public:
  DynamicScan(ElfImage& image, Elf* elf, const GElf_Ehdr& ehdr)
      : m_image(image),
        m_elf(elf),
        m_big_endian(ehdr.e_ident[EI_DATA] == ELFDATA2MSB),
        m_wide(ehdr.e_ident[EI_CLASS] == ELFCLASS64) {}

  // nullopt with no problem() when there is no PT_DYNAMIC (the section headers may say more);
  // nullopt with a problem() when the segment is there but its tables cannot be read whole: the
  // loader would read them, so a partial answer could hide a requirement.
  std::optional<ElfRequirements> run() {
    std::size_t count = 0;
    if (elf_getphdrnum(m_elf, &count) != 0) return bad("the program headers are unreadable");
    std::optional<GElf_Phdr> dynamic;
    for (std::size_t i = 0; i < count; ++i) {
      GElf_Phdr phdr;
      if (gelf_getphdr(m_elf, static_cast<int>(i), &phdr) == nullptr)
        return bad("program header " + std::to_string(i) + " is unreadable");
      if (phdr.p_type == PT_LOAD) m_loads.push_back(phdr);
      if (phdr.p_type == PT_DYNAMIC) dynamic = phdr;
    }
    if (!dynamic) return std::nullopt;
    const std::size_t dyn_size = gelf_fsize(m_elf, ELF_T_DYN, 1, EV_CURRENT);
    Elf_Data* dyn = chunk(dynamic->p_offset, dynamic->p_filesz / dyn_size * dyn_size, ELF_T_DYN);
    if (dyn == nullptr) return bad("the dynamic segment lies outside the file");
    std::vector<std::uint64_t> needed;
    std::map<std::int64_t, std::uint64_t> tags;
    for (std::size_t i = 0; i < dynamic->p_filesz / dyn_size; ++i) {
      GElf_Dyn entry;
      if (gelf_getdyn(dyn, static_cast<int>(i), &entry) == nullptr)
        return bad("dynamic entry " + std::to_string(i) + " is unreadable");
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED)
        needed.push_back(entry.d_un.d_val);
      else if (!tags.contains(entry.d_tag))
        tags[entry.d_tag] = entry.d_un.d_val;
    }
    ElfRequirements out;
    if (needed.empty() && !tags.contains(DT_VERNEED) && !tags.contains(DT_VERSYM)) return out;
    const auto strtab = file_offset(tags, DT_STRTAB);
    if (!strtab || !tags.contains(DT_STRSZ) || !cover(*strtab, tags[DT_STRSZ]))
      return bad("the dynamic string table (DT_STRTAB, DT_STRSZ) lies outside the file");
    m_strtab = *strtab;
    m_strsz = tags[DT_STRSZ];
    for (const auto index : needed) {
      const char* name = string(index);
      if (name == nullptr) return bad("a DT_NEEDED name lies outside the string table");
      out.needed.emplace_back(name);
    }

    std::map<unsigned, std::string> version_names;  // vna_other → name
    if (tags.contains(DT_VERNEED)) {
      auto offset = file_offset(tags, DT_VERNEED);
      if (!offset || !tags.contains(DT_VERNEEDNUM))
        return bad("DT_VERNEED (.gnu.version_r) lies outside the file or has no DT_VERNEEDNUM");
      const std::uint64_t needs = tags[DT_VERNEEDNUM];
      for (std::uint64_t n = 0; n < needs; ++n) {
        const auto vn_cnt = half(*offset + 2);
        const auto vn_aux = word(*offset + 8);
        const auto vn_next = word(*offset + 12);
        if (!vn_cnt || !vn_aux || !vn_next) return bad("version need " + std::to_string(n) + " is truncated");
        std::uint64_t aux = *offset + *vn_aux;
        for (unsigned a = 0; a < *vn_cnt; ++a) {
          const auto vna_other = half(aux + 6);
          const auto vna_name = word(aux + 8);
          const auto vna_next = word(aux + 12);
          if (!vna_other || !vna_name || !vna_next)
            return bad("version need " + std::to_string(n) + " entry " + std::to_string(a) + " is truncated");
          const char* name = string(*vna_name);
          if (name == nullptr) return bad("a required version's name lies outside the string table");
          version_names[*vna_other] = name;
          out.versions.emplace_back(name);
          aux += *vna_next;
        }
        if (*vn_next == 0) {
          if (n + 1 < needs)
            return bad("DT_VERNEEDNUM says " + std::to_string(needs) +
                       " version needs, the chain ends after " + std::to_string(n + 1));
          break;
        }
        *offset += *vn_next;
      }
    }
    // Every required version is in out.versions already; the symbols only name who needs it, so
    // a library without a hash table to count them by is still judged whole.
    if (!tags.contains(DT_SYMTAB) || !tags.contains(DT_VERSYM)) return out;
    const auto symtab = file_offset(tags, DT_SYMTAB);
    const auto versym = file_offset(tags, DT_VERSYM);
    const auto symbols = symbol_count(tags);
    if (!m_problem.empty()) return std::nullopt;
    if (!symbols) return out;
    if (!symtab || !versym) return bad("DT_SYMTAB or DT_VERSYM (.gnu.version) lies outside the file");
    const std::size_t sym_size = gelf_fsize(m_elf, ELF_T_SYM, 1, EV_CURRENT);
    Elf_Data* syms = chunk(*symtab, *symbols * sym_size, ELF_T_SYM);
    Elf_Data* vers = chunk(*versym, *symbols * 2, ELF_T_HALF);
    if (syms == nullptr || vers == nullptr)
      return bad("the dynamic symbol table or .gnu.version is truncated (" + std::to_string(*symbols) +
                 " symbols)");
    for (std::size_t i = 1; i < *symbols; ++i) {
      GElf_Sym sym;
      GElf_Versym ver;
      if (gelf_getsym(syms, static_cast<int>(i), &sym) == nullptr ||
          gelf_getversym(vers, static_cast<int>(i), &ver) == nullptr)
        return bad("dynamic symbol " + std::to_string(i) + " or its version is unreadable");
      if (sym.st_shndx != SHN_UNDEF) continue;
      const unsigned index = static_cast<unsigned>(ver & 0x7fff);
      if (index <= 1) continue;  // local or unversioned
      const auto found = version_names.find(index);
      if (found == version_names.end())
        return bad("dynamic symbol " + std::to_string(i) + " needs version index " + std::to_string(index) +
                   ", which .gnu.version_r does not define");
      const char* name = string(sym.st_name);
      if (name == nullptr) return bad("a dynamic symbol's name lies outside the string table");
      out.symbols.push_back({name, found->second});
    }
    return out;
  }

  Status error() const { return m_error; }
  const std::string& problem() const { return m_problem; }

private:
  std::nullopt_t bad(std::string problem) {
    if (m_problem.empty()) m_problem = std::move(problem);
    return std::nullopt;
  }

  bool cover(std::uint64_t offset, std::uint64_t size) {
    if (offset > m_image.size() || size > m_image.size() - offset) return false;
    if (auto ok = m_image.cover_prefix(offset + size); !ok) {
      m_error = ok;
      return false;
    }
    return true;
  }

  Elf_Data* chunk(std::uint64_t offset, std::uint64_t size, Elf_Type type) {
    if (size == 0 || !cover(offset, size)) return nullptr;
    return elf_getdata_rawchunk(m_elf, static_cast<int64_t>(offset), static_cast<std::size_t>(size), type);
  }

  std::optional<std::uint64_t> number(std::uint64_t offset, unsigned width) {
    if (!cover(offset, width)) return std::nullopt;
    const auto* bytes = reinterpret_cast<const unsigned char*>(m_image.data() + offset);
    std::uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i)
      value |= std::uint64_t{bytes[m_big_endian ? width - 1 - i : i]} << (8 * i);
    return value;
  }
  std::optional<std::uint64_t> half(std::uint64_t offset) { return number(offset, 2); }
  std::optional<std::uint64_t> word(std::uint64_t offset) { return number(offset, 4); }

  // Dynamic entries hold addresses; the PT_LOAD segment holding one gives its file offset.
  std::optional<std::uint64_t> file_offset(const std::map<std::int64_t, std::uint64_t>& tags,
                                           std::int64_t tag) {
    const auto found = tags.find(tag);
    if (found == tags.end()) return std::nullopt;
    for (const auto& load : m_loads)
      if (found->second >= load.p_vaddr && found->second - load.p_vaddr < load.p_filesz)
        return found->second - load.p_vaddr + load.p_offset;
    return std::nullopt;
  }

  const char* string(std::uint64_t index) const {
    if (index >= m_strsz) return nullptr;
    const char* start = m_image.data() + m_strtab + index;
    return std::memchr(start, '\0', static_cast<std::size_t>(m_strsz - index)) != nullptr ? start : nullptr;
  }

  // The number of dynamic symbols: DT_HASH's nchain, or one past the last GNU hash chain's end.
  // nullopt with a problem() when a hash table is there but unreadable.
  std::optional<std::uint64_t> symbol_count(const std::map<std::int64_t, std::uint64_t>& tags) {
    if (tags.contains(DT_HASH)) {
      const auto hash = file_offset(tags, DT_HASH);
      const auto nchain = hash ? word(*hash + 4) : std::nullopt;
      if (!nchain) return bad("the DT_HASH table lies outside the file");
      return nchain;
    }
    if (!tags.contains(DT_GNU_HASH)) return std::nullopt;
    const auto gnu = file_offset(tags, DT_GNU_HASH);
    if (!gnu) return bad("the DT_GNU_HASH table lies outside the file");
    const auto buckets = word(*gnu);
    const auto first = word(*gnu + 4);
    const auto bloom = word(*gnu + 8);
    if (!buckets || !first || !bloom) return bad("the DT_GNU_HASH table is truncated");
    const std::uint64_t bucket_table = *gnu + 16 + *bloom * (m_wide ? 8 : 4);
    std::uint64_t last = 0;
    for (std::uint64_t b = 0; b < *buckets; ++b) {
      const auto value = word(bucket_table + 4 * b);
      if (!value) return bad("the DT_GNU_HASH buckets are truncated");
      last = std::max(last, *value);
    }
    if (last == 0) return *first;
    if (last < *first) return bad("the DT_GNU_HASH buckets point before its first symbol");
    const std::uint64_t chains = bucket_table + 4 * *buckets;
    for (std::uint64_t i = last;; ++i) {
      const auto value = word(chains + 4 * (i - *first));
      if (!value) return bad("the DT_GNU_HASH chains are truncated");
      if ((*value & 1) != 0) return i + 1;
    }
  }

  ElfImage& m_image;
  Elf* m_elf;
  bool m_big_endian;
  bool m_wide;
  std::vector<GElf_Phdr> m_loads;
  std::uint64_t m_strtab = 0;
  std::uint64_t m_strsz = 0;
  Status m_error;
  std::string m_problem;
};

bool wanted(Elf64_Word type) {
  return type == SHT_DYNAMIC || type == SHT_GNU_verneed || type == SHT_DYNSYM || type == SHT_GNU_versym;
}

tl::unexpected<Error> unreadable(const std::string& problem) {
  return fail(ErrorCategory::integrity, "its symbol-version data is unreadable or inconsistent: " + problem);
}

bool within(const ElfImage& image, std::uint64_t offset, std::uint64_t size) {
  return offset <= image.size() && size <= image.size() - offset;
}

// The section headers' view: covers the header table, then the wanted sections and their string
// tables, and reads them as the section-based tools (readelf, auditwheel) do. Whatever is there
// must be read whole: a section that cannot be is an error, never an empty answer.
Result<ElfRequirements> scan_sections(ElfImage& image, const GElf_Ehdr& ehdr) {
  if (ehdr.e_shoff == 0) return ElfRequirements{};
  const std::uint64_t shentsize = std::max<std::uint64_t>(ehdr.e_shentsize, 1);
  std::uint64_t shnum = ehdr.e_shnum;
  if (shnum == 0) {  // more than SHN_LORESERVE sections: the count is in section 0's sh_size
    if (auto ok = image.cover_ranges({{ehdr.e_shoff, shentsize}}); !ok) return tl::unexpected(ok.error());
    auto elf = open_elf(image);
    if (!elf) return tl::unexpected(elf.error());
    std::size_t count = 0;
    if (elf_getshdrnum(elf->get(), &count) != 0) return ElfRequirements{};
    shnum = count;
  }
  if (shnum > image.size() / shentsize || !within(image, ehdr.e_shoff, shnum * shentsize))
    return unreadable("the section headers lie past the end of the file (is it truncated?)");
  if (auto ok = image.cover_ranges({{ehdr.e_shoff, shnum * shentsize}}); !ok)
    return tl::unexpected(ok.error());
  auto headers = open_elf(image);
  if (!headers) return tl::unexpected(headers.error());
  Ranges ranges;
  for (Elf_Scn* scn = elf_nextscn(headers->get(), nullptr); scn != nullptr;
       scn = elf_nextscn(headers->get(), scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) return unreadable("a section header is unreadable");
    if (!wanted(shdr.sh_type)) continue;
    ranges.emplace_back(shdr.sh_offset, shdr.sh_size);
    GElf_Shdr link;
    if (Elf_Scn* linked = elf_getscn(headers->get(), shdr.sh_link);
        linked != nullptr && gelf_getshdr(linked, &link) != nullptr && link.sh_type != SHT_NOBITS)
      ranges.emplace_back(link.sh_offset, link.sh_size);
  }
  for (const auto& [offset, size] : ranges)
    if (!within(image, offset, size))
      return unreadable(
          "a dynamic, symbol or version section lies past the end of the file (is it truncated?)");
  if (auto ok = image.cover_ranges(std::move(ranges)); !ok) return tl::unexpected(ok.error());
  auto opened = open_elf(image);
  if (!opened) return tl::unexpected(opened.error());
  Elf* elf = opened->get();

  ElfRequirements out;
  std::map<unsigned, std::string> version_names;  // vna_other → name
  Elf_Scn* dynsym = nullptr;
  Elf_Scn* versym = nullptr;
  std::size_t dynsym_link = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (gelf_getshdr(scn, &shdr) == nullptr) return unreadable("a section header is unreadable");
    if (!wanted(shdr.sh_type)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr) return unreadable("section " + std::to_string(elf_ndxscn(scn)) + " is unreadable");
    if (shdr.sh_type == SHT_DYNAMIC) {
      for (std::size_t i = 0; i < shdr.sh_size / std::max<std::size_t>(shdr.sh_entsize, 1); ++i) {
        GElf_Dyn dyn;
        if (gelf_getdyn(data, static_cast<int>(i), &dyn) == nullptr)
          return unreadable(".dynamic entry " + std::to_string(i) + " is unreadable");
        if (dyn.d_tag == DT_NULL) break;
        if (dyn.d_tag == DT_NEEDED) {
          const char* name = elf_strptr(elf, shdr.sh_link, dyn.d_un.d_val);
          if (name == nullptr) return unreadable("a DT_NEEDED name lies outside the string table");
          out.needed.emplace_back(name);
        }
      }
    } else if (shdr.sh_type == SHT_GNU_verneed) {
      std::size_t offset = 0;
      for (std::size_t n = 0; n < shdr.sh_info; ++n) {
        GElf_Verneed need;
        if (gelf_getverneed(data, static_cast<int>(offset), &need) == nullptr)
          return unreadable(".gnu.version_r entry " + std::to_string(n) + " is truncated");
        std::size_t aux_offset = offset + need.vn_aux;
        for (std::size_t a = 0; a < need.vn_cnt; ++a) {
          GElf_Vernaux aux;
          if (gelf_getvernaux(data, static_cast<int>(aux_offset), &aux) == nullptr)
            return unreadable(".gnu.version_r entry " + std::to_string(n) + " is truncated");
          const char* name = elf_strptr(elf, shdr.sh_link, aux.vna_name);
          if (name == nullptr) return unreadable("a required version's name lies outside the string table");
          version_names[aux.vna_other] = name;
          out.versions.emplace_back(name);
          aux_offset += aux.vna_next;
        }
        if (need.vn_next == 0) {
          if (n + 1 < shdr.sh_info)
            return unreadable(".gnu.version_r says " + std::to_string(shdr.sh_info) +
                              " entries, its chain ends after " + std::to_string(n + 1));
          break;
        }
        offset += need.vn_next;
      }
    } else if (shdr.sh_type == SHT_DYNSYM) {
      dynsym = scn;
      dynsym_link = shdr.sh_link;
    } else if (shdr.sh_type == SHT_GNU_versym) {
      versym = scn;
    }
  }
  if (versym != nullptr && dynsym == nullptr) return unreadable(".gnu.version without a .dynsym");
  if (dynsym != nullptr && versym != nullptr) {
    GElf_Shdr shdr, version_shdr;
    if (gelf_getshdr(dynsym, &shdr) == nullptr || gelf_getshdr(versym, &version_shdr) == nullptr)
      return unreadable("a section header is unreadable");
    Elf_Data* symbols = elf_getdata(dynsym, nullptr);
    Elf_Data* versions = elf_getdata(versym, nullptr);
    const std::size_t count = shdr.sh_size / std::max<std::size_t>(shdr.sh_entsize, 1);
    if (symbols == nullptr || versions == nullptr || version_shdr.sh_size / 2 != count)
      return unreadable(".gnu.version has " + std::to_string(version_shdr.sh_size / 2) + " entries for " +
                        std::to_string(count) + " dynamic symbols");
    for (std::size_t i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Versym ver;
      if (gelf_getsym(symbols, static_cast<int>(i), &sym) == nullptr ||
          gelf_getversym(versions, static_cast<int>(i), &ver) == nullptr)
        return unreadable("dynamic symbol " + std::to_string(i) + " or its version is unreadable");
      if (sym.st_shndx != SHN_UNDEF) continue;
      const unsigned index = static_cast<unsigned>(ver & 0x7fff);
      if (index <= 1) continue;  // local or unversioned
      const auto found = version_names.find(index);
      if (found == version_names.end())
        return unreadable("dynamic symbol " + std::to_string(i) + " needs version index " +
                          std::to_string(index) + ", which .gnu.version_r does not define");
      const char* name = elf_strptr(elf, dynsym_link, sym.st_name);
      if (name == nullptr) return unreadable("a dynamic symbol's name lies outside the string table");
      out.symbols.push_back({name, found->second});
    }
  }
  return out;
}

}  // namespace

Result<std::optional<ElfRequirements>> read_elf_requirements(std::string_view bytes, ElfScan scan) {
  MemoryImage image(bytes);
  return read_elf_requirements(image, scan);
}

Result<std::optional<ElfRequirements>> read_elf_requirements(ElfImage& image, ElfScan scan) {
  if (auto ok = image.cover_prefix(64); !ok) return tl::unexpected(ok.error());
  if (image.size() < 4 || std::memcmp(image.data(),
                                      "\x7f"
                                      "ELF",
                                      4) != 0)
    return std::optional<ElfRequirements>{};
  elf_version(EV_CURRENT);
  auto first = open_elf(image);
  if (!first) return tl::unexpected(first.error());
  GElf_Ehdr ehdr;
  if (gelf_getehdr(first->get(), &ehdr) == nullptr)
    return fail(ErrorCategory::integrity, std::string("not a readable ELF file: ") + elf_errmsg(-1));
  const bool headers_inside = within(image, ehdr.e_phoff, std::uint64_t{ehdr.e_phnum} * ehdr.e_phentsize);
  if (ehdr.e_phnum != PN_XNUM && !headers_inside)
    return unreadable("the program headers lie past the end of the file (is it truncated?)");
  if (scan == ElfScan::dynamic_segment && ehdr.e_phoff != 0 && ehdr.e_phnum != PN_XNUM) {
    if (auto ok = image.cover_prefix(ehdr.e_phoff + std::uint64_t{ehdr.e_phnum} * ehdr.e_phentsize); !ok)
      return tl::unexpected(ok.error());
    auto elf = open_elf(image);
    if (!elf) return tl::unexpected(elf.error());
    DynamicScan dynamic(image, elf->get(), ehdr);
    auto found = dynamic.run();
    if (auto ok = dynamic.error(); !ok) return tl::unexpected(ok.error());
    if (!dynamic.problem().empty()) return unreadable(dynamic.problem());
    if (found) return std::optional<ElfRequirements>(std::move(*found));
  }
  auto sections = scan_sections(image, ehdr);
  if (!sections) return tl::unexpected(sections.error());
  return std::optional<ElfRequirements>(std::move(*sections));
}

}  // namespace relforge::packaging
