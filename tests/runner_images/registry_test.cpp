// The registry check against a loopback server speaking the Registry API's manifest endpoint,
// and the lock file built from its answers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "platform/http_server.hpp"
#include "runner_images/plan.hpp"
#include "runner_images/registry.hpp"
#include "tests/runner_images/fleet_fixture.hpp"

namespace relforge::runner_images::test {
namespace {

using ::testing::HasSubstr;
constexpr const char* k_digest = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945";

// Answers HEAD /v2/<repo>/manifests/<tag> by the tag's first word: "present…" 200 with a digest,
// "denied…" 401, "broken…" 500, anything else 404. Records the last request.
class Registry {
public:
  Registry() {
    m_server.route("GET", "/v2/(.+)/manifests/([^/]+)", [this](const platform::HttpRequest& request) {
      {
        const std::lock_guard guard(m_mutex);
        m_last = request;
      }
      const std::string tag = request.matches[1];
      platform::HttpResponse response;
      if (tag.rfind("present", 0) == 0 || m_present == tag) {
        response.status = 200;
        response.content_type = "application/vnd.oci.image.index.v1+json";
        response.headers.push_back({"Docker-Content-Digest", k_digest});
      } else if (tag.rfind("denied", 0) == 0 || m_mode == 401) {
        response.status = 401;
        response.headers.push_back({"WWW-Authenticate", "Bearer realm=\"https://auth.example/token\""});
      } else if (tag.rfind("broken", 0) == 0 || m_mode == 500) {
        response.status = 500;
      } else {
        response.status = 404;
      }
      return response;
    });
    auto port = m_server.bind("127.0.0.1", 0);
    EXPECT_TRUE(port);
    m_url = "http://127.0.0.1:" + std::to_string(*port);
    m_thread = std::thread([this] { (void)m_server.serve(); });
  }
  ~Registry() {
    m_server.stop();
    m_thread.join();
  }
  platform::HttpRequest last() {
    const std::lock_guard guard(m_mutex);
    return m_last;
  }

  std::string m_url;
  std::string m_present;  // a tag answered 200
  int m_mode = 404;       // the answer for other tags

private:
  platform::HttpServer m_server;
  std::thread m_thread;
  std::mutex m_mutex;
  platform::HttpRequest m_last;
};

TEST(RepositoryPath, StripsARegistryHost) {
  EXPECT_EQ(repository_path("pytorch/manylinux2_28-builder"), "pytorch/manylinux2_28-builder");
  EXPECT_EQ(repository_path("ghcr.io/minitensor/builder"), "minitensor/builder");
  EXPECT_EQ(repository_path("localhost:5000/a/b"), "a/b");
  EXPECT_EQ(repository_path("localhost/a"), "a");
  EXPECT_EQ(repository_path("ubuntu"), "ubuntu");
}

TEST(CheckTag, PresentTagsReturnTheirDigestViaHeadWithManifestMediaTypes) {
  Registry registry;
  const auto answer = check_tag(registry.m_url, "ghcr.io/org/builder", "present-cuda12.6-0123456789ab");
  EXPECT_EQ(answer.status, TagStatus::present);
  EXPECT_EQ(answer.digest, k_digest);
  const auto request = registry.last();
  EXPECT_EQ(request.method, "HEAD");
  EXPECT_EQ(request.path, "/v2/org/builder/manifests/present-cuda12.6-0123456789ab");
  const auto accept = request.header("accept").value_or("");
  EXPECT_THAT(accept, HasSubstr("application/vnd.oci.image.index.v1+json"));
  EXPECT_THAT(accept, HasSubstr("application/vnd.oci.image.manifest.v1+json"));
  EXPECT_THAT(accept, HasSubstr("application/vnd.docker.distribution.manifest.list.v2+json"));
  EXPECT_THAT(accept, HasSubstr("application/vnd.docker.distribution.manifest.v2+json"));
}

TEST(CheckTag, NotFoundIsMissing) {
  Registry registry;
  const auto answer = check_tag(registry.m_url + "/", "org/builder", "cpu-0123456789ab");
  EXPECT_EQ(answer.status, TagStatus::missing);
  EXPECT_TRUE(answer.digest.empty());
  EXPECT_EQ(registry.last().path, "/v2/org/builder/manifests/cpu-0123456789ab");
}

TEST(CheckTag, UnauthorizedAndServerErrorsAreUnknownWithAReason) {
  Registry registry;
  const auto denied = check_tag(registry.m_url, "org/builder", "denied-1");
  EXPECT_EQ(denied.status, TagStatus::unknown);
  EXPECT_EQ(denied.http_status, 401);
  EXPECT_THAT(denied.problem, HasSubstr("the registry answered 401"));
  EXPECT_THAT(denied.problem, HasSubstr("credentials are missing"));
  const auto broken = check_tag(registry.m_url, "org/builder", "broken-1");
  EXPECT_EQ(broken.status, TagStatus::unknown);
  EXPECT_EQ(broken.http_status, 500);
  EXPECT_THAT(broken.problem, HasSubstr("a server error; try again later"));
}

TEST(CheckTag, AnUnreachableRegistryIsUnknown) {
  std::string url;
  {
    Registry registry;  // bound, then stopped: its port refuses connections afterwards
    url = registry.m_url;
  }
  const auto answer = check_tag(url, "org/builder", "cpu-1", std::chrono::seconds(5));
  EXPECT_EQ(answer.status, TagStatus::unknown);
  EXPECT_THAT(answer.problem, HasSubstr("registry unreachable"));
}

TEST_F(FleetFixture, PlanChecksEveryTagAndPrintsBuildCommandsForMissingOnes) {
  auto fleet = load();
  ASSERT_TRUE(fleet) << fleet.error().message();
  auto plans = plan_images(*fleet, expand());
  ASSERT_TRUE(plans) << plans.error().message();
  ASSERT_EQ(plans->size(), 2u);
  Registry registry;
  registry.m_present = (*plans)[0].context.tag;  // cpu is pushed, cuda12.6 is not
  check_registry(*plans, registry.m_url);
  EXPECT_EQ((*plans)[0].answer.status, TagStatus::present);
  EXPECT_EQ((*plans)[1].answer.status, TagStatus::missing);
  const auto commands = build_commands((*plans)[1], "out");
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0], "docker build --target final -t " + (*plans)[1].context.reference() +
                             " out/demo/builder/cuda12.6");
  EXPECT_EQ(commands[1], "docker push " + (*plans)[1].context.reference());
}

TEST_F(FleetFixture, AnUnreachableRegistryMarksEveryTagUnknown) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto plans = plan_images(*fleet, expand());
  ASSERT_TRUE(plans);
  std::string url;
  {
    Registry registry;
    url = registry.m_url;
  }
  check_registry(*plans, url);
  for (const auto& plan : *plans) {
    EXPECT_EQ(plan.answer.status, TagStatus::unknown);
    EXPECT_THAT(plan.answer.problem, HasSubstr("registry unreachable"));
  }
}

TEST_F(FleetFixture, TheLockRecordsCellRunnerClassTagAndDigest) {
  auto fleet = load();
  ASSERT_TRUE(fleet);
  auto expansions = expand();
  auto plans = plan_images(*fleet, expansions);
  ASSERT_TRUE(plans);
  Registry registry;
  registry.m_present = (*plans)[1].context.tag;
  check_registry(*plans, registry.m_url);
  auto text = render_lock(*fleet, expansions.front(), *plans, {"relforge.toml", "nightly", registry.m_url});
  ASSERT_TRUE(text) << text.error().message();
  const auto lock = nlohmann::json::parse(*text);
  EXPECT_EQ(lock["version"], 1);
  EXPECT_EQ(lock["channel"], "nightly");
  ASSERT_EQ(lock["cells"].size(), 4u);
  const auto& cell = lock["cells"][1];
  EXPECT_EQ(cell["id"], "3.12-cu126");
  EXPECT_EQ(cell["runs_on"], "linux.gpu");
  EXPECT_EQ(cell["runner_class"], "linux.gpu");
  EXPECT_EQ(cell["image"], (*plans)[1].context.reference());
  EXPECT_EQ(cell["digest"], k_digest);
  EXPECT_TRUE(lock["cells"][0]["digest"].is_null());  // cpu: the registry answered 404
  EXPECT_EQ(lock["images"][0]["status"], "missing");

  auto found = find_locked_image(*text, "3.12-cu126", "images.lock.json");
  ASSERT_TRUE(found) << found.error().message();
  EXPECT_EQ(found->reference, (*plans)[1].context.reference());
  EXPECT_EQ(found->digest, k_digest);
  EXPECT_EQ(found->runner_class, "linux.gpu");
  auto absent = find_locked_image(*text, "3.99-cpu", "images.lock.json");
  ASSERT_FALSE(absent);
  EXPECT_EQ(absent.error().category(), ErrorCategory::not_found);
  auto garbage = find_locked_image("{}", "3.12-cpu", "x.json");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().category(), ErrorCategory::invalid_input);
}

}  // namespace
}  // namespace relforge::runner_images::test
