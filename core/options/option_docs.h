// The run-option reference, generated from the schema: `deepladder options` prints it, and the
// options page docs/options.md is this text (a test keeps the two equal).
#pragma once

#include <string>

namespace deepladder::options {

// Markdown: one table per section ([model], [data], ...): key, type, default, allowed values,
// the tasks whose trainer honours it, and what it does. Options outside the config hash are
// marked (changing them resumes the same run).
std::string optionsReferenceMarkdown();

// Plain text for a terminal: every option whose qualified key contains `filter` ("" = all),
// one block each.
std::string optionsReferenceText(const std::string& filter);

}  // namespace deepladder::options
