#pragma once
// An S3-compatible bucket as an ObjectStore, through platform's libcurl client with AWS SigV4
// (libcurl signs; every request carries x-amz-content-sha256). Path-style addressing
// (endpoint/bucket/key), so it works with AWS, MinIO and s3rver alike. Credentials come from the caller.
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "channels/object_store.hpp"
#include "core/error.hpp"
#include "core/retry.hpp"

namespace relforge::channels {

struct S3Location {
  std::string bucket;
  std::string prefix;  // no leading or trailing '/'; empty: the bucket's root
};

// "s3://bucket" or "s3://bucket/some/prefix".
Result<S3Location> parse_s3_url(std::string_view url);
bool is_s3_url(std::string_view text);

struct S3Options {
  S3Location location;
  std::string endpoint;  // "http://127.0.0.1:9000"; empty: https://s3.<region>.amazonaws.com
  std::string region = "us-east-1";
  std::string access_key;
  std::string secret_key;
  std::string session_token;  // sent as x-amz-security-token when set
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
  std::size_t list_page_size = 1000;  // max-keys of one ListObjectsV2 page
  // 5xx, 429 and failed connections are tried again after a capped exponential backoff.
  core::RetryPolicy retry{.max_attempts = 3, .base_delay_seconds = 1, .max_delay_seconds = 4};
  // What one listing may hold in all and in pages (a server that never stops paging is refused).
  std::size_t max_listed_objects = 10'000'000;
  std::size_t max_list_pages = 100'000;
  std::size_t max_object_bytes = std::size_t{256} << 20U;  // the largest object get() holds in memory
};

// Checks the options (bucket, region, credentials present) and returns the store.
Result<std::unique_ptr<ObjectStore>> make_s3_store(S3Options options);

}  // namespace relforge::channels
