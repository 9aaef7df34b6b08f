#include "cli/completion.hpp"

#include <memory>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"

namespace relforge::cli {
namespace {

// One command of the tree: its path below the program ("" for relforge itself, "matrix expand"),
// what it says it does, its subcommands and long options.
struct Node {
  std::string path;
  std::string summary;
  std::vector<std::string> subcommands;
  std::vector<std::string> options;
};

void collect(const CLI::App& app, const std::string& path, std::vector<Node>& nodes) {
  Node node{path, app.get_description(), {}, {}};
  for (const CLI::Option* option : app.get_options()) {
    for (const auto& name : option->get_lnames()) node.options.push_back("--" + name);
  }
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs) node.subcommands.push_back(sub->get_name());
  nodes.push_back(node);
  for (const CLI::App* sub : subs)
    collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), nodes);
}

std::string words(const std::vector<std::string>& list) {
  std::string out;
  for (const auto& word : list) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Single quotes for sh-like shells (descriptions are the only free text).
std::string sh_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The two lookup functions both sh-like scripts share: `_relforge_words PATH` (subcommands) and
// `_relforge_options PATH`, each a case over every command path, printed with `print_word`.
std::string lookup_functions(const std::vector<Node>& nodes, const std::string& print_word) {
  std::string out = "_relforge_words() {\n  case \"$1\" in\n";
  for (const auto& node : nodes)
    out +=
        "    " + sh_quote(node.path) + ") " + print_word + " " + sh_quote(words(node.subcommands)) + " ;;\n";
  out += "  esac\n}\n_relforge_options() {\n  case \"$1\" in\n";
  for (const auto& node : nodes)
    out += "    " + sh_quote(node.path) + ") " + print_word + " " + sh_quote(words(node.options)) + " ;;\n";
  return out + "  esac\n}\n";
}

std::string bash_script(const std::vector<Node>& nodes) {
  std::string out = "# relforge completion for bash: source <(relforge completion bash)\n";
  out += lookup_functions(nodes, "echo");
  out += R"SH(_relforge() {
  local cur="${COMP_WORDS[COMP_CWORD]}" path="" i word
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="${COMP_WORDS[i]}"
    if [[ " $(_relforge_words "$path") " == *" $word "* ]]; then path="${path:+$path }$word"; fi
  done
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_relforge_options "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_relforge_words "$path")" -- "$cur"))
  fi
}
complete -o default -F _relforge relforge
)SH";
  return out;
}

std::string zsh_script(const std::vector<Node>& nodes) {
  std::string out = "#compdef relforge\n# relforge completion for zsh: source <(relforge completion zsh)\n";
  out += lookup_functions(nodes, "print -r --");
  out += R"SH(_relforge() {
  local path="" word i
  local -a candidates
  for ((i = 2; i < CURRENT; i++)); do
    word="${words[i]}"
    if [[ " $(_relforge_words "$path") " == *" $word "* ]]; then path="${path:+$path }$word"; fi
  done
  if [[ "${words[CURRENT]}" == -* ]]; then
    candidates=(${=$(_relforge_options "$path")})
  else
    candidates=(${=$(_relforge_words "$path")})
  fi
  compadd -a candidates
  _files
}
if (( $+functions[compdef] )); then compdef _relforge relforge; fi
)SH";
  return out;
}

std::string fish_script(const std::vector<Node>& nodes) {
  std::string out = "# relforge completion for fish: relforge completion fish | source\n";
  out += R"SH(function __relforge_path
    set -l path ""
    for word in (commandline -opc)[2..-1]
        if contains -- $word (string split " " (__relforge_words $path))
            if test -z "$path"
                set path $word
            else
                set path "$path $word"
            end
        end
    end
    echo $path
end
function __relforge_words
    switch "$argv[1]"
)SH";
  for (const auto& node : nodes)
    out += "        case " + sh_quote(node.path) + "\n            echo " + sh_quote(words(node.subcommands)) +
           "\n";
  out += "    end\nend\ncomplete -c relforge -f\n";
  for (const auto& node : nodes) {
    for (const auto& name : node.subcommands) {
      const std::string child = node.path.empty() ? name : node.path + " " + name;
      std::string summary;
      for (const auto& other : nodes)
        if (other.path == child) summary = other.summary;
      out += "complete -c relforge -n " + sh_quote("test \"$(__relforge_path)\" = " + sh_quote(node.path)) +
             " -a " + sh_quote(name) + " -d " + sh_quote(summary) + "\n";
    }
    for (const auto& option : node.options) {
      out += "complete -c relforge -n " + sh_quote("test \"$(__relforge_path)\" = " + sh_quote(node.path)) +
             " -l " + sh_quote(option.substr(2)) + "\n";
    }
  }
  return out;
}

}  // namespace

Result<std::string> completion_script(const CLI::App& root, const std::string& shell) {
  std::vector<Node> nodes;
  collect(root, "", nodes);
  if (shell == "bash") return bash_script(nodes);
  if (shell == "zsh") return zsh_script(nodes);
  if (shell == "fish") return fish_script(nodes);
  return fail(ErrorCategory::invalid_input,
              "unknown shell '" + shell + "' for completion (shells: bash, zsh, fish)");
}

void register_completion(CLI::App& command, Runtime& runtime) {
  auto shell = std::make_shared<std::string>();
  command.add_option("shell", *shell, "bash, zsh or fish")->required();
  add_json_flag(command, runtime);
  command.footer(
      "bash: source <(relforge completion bash)   zsh: source <(relforge completion zsh)\n"
      "fish: relforge completion fish | source");
  command.callback([&runtime, &command, shell] {
    const CLI::App* root = &command;
    while (root->get_parent() != nullptr) root = root->get_parent();
    auto script = completion_script(*root, *shell);
    if (!script) return report_error(runtime, script.error());
    if (runtime.json)
      runtime.out << json_text(nlohmann::json{{"shell", *shell}, {"script", *script}}) << '\n';
    else
      runtime.out << *script;
    finish(runtime, {});
  });
}

}  // namespace relforge::cli
