// Collects the warnings ember reports (ember::warn) while alive, instead of printing them, so a
// test can assert their texts.
#pragma once
#include <string>
#include <vector>

#include "ember.h"

struct CapturedWarnings {
  std::vector<std::string> texts;
  ember::WarningHandler previous;
  CapturedWarnings() {
    previous = ember::set_warning_handler([this](const std::string& text) { texts.push_back(text); });
  }
  ~CapturedWarnings() { ember::set_warning_handler(previous); }
  CapturedWarnings(const CapturedWarnings&) = delete;
  CapturedWarnings& operator=(const CapturedWarnings&) = delete;
};
