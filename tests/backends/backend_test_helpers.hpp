// Assertions the backend tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "common/errors.hpp"

namespace gpubench::test {

inline ::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << part << "' is not in:\n" << text;
}

// The message of the DeviceError `body` throws; fails the test if it throws nothing or else.
template <typename Body>
std::string device_error_of(Body&& body) {
  try {
    body();
  } catch (const DeviceError& e) {
    EXPECT_EQ(e.code(), ExitCode::device);
    return e.what();
  }
  ADD_FAILURE() << "expected a DeviceError";
  return {};
}

}  // namespace gpubench::test
