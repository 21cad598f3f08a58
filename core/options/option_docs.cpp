// The generated run-option reference (see option_docs.h).
#include "core/options/option_docs.h"

#include <sstream>

#include "core/options/option_schema.h"

namespace deepladder::options {

namespace {

std::string typeWord(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::integer:
      return "integer";
    case OptionType::number:
      return "number";
    case OptionType::boolean:
      return "boolean";
    case OptionType::string:
      return "string";
    case OptionType::choice:
      return "choice";
  }
  return "";
}

std::string allowedText(const OptionSpec& spec) {
  if (spec.type == OptionType::choice) {
    std::string out;
    for (size_t i = 0; i < spec.choices.size(); ++i)
      out += (i ? ", " : "") + std::string(spec.choices[i]);
    return out;
  }
  std::string range = rangeDescription(spec);
  if (!range.empty() && !spec.unit.empty()) range += " " + std::string(spec.unit);
  if (range.empty() && !spec.unit.empty()) range = std::string(spec.unit);
  return range;
}

std::string tasksText(const OptionSpec& spec) {
  if ((spec.flags & kBothTasks) == kBothTasks) return "lm, squaring";
  return (spec.flags & kLm) ? "lm" : "squaring";
}

std::string sectionTitle(Section section) {
  return section == Section::root ? std::string("top level")
                                  : "[" + std::string(sectionName(section)) + "]";
}

}  // namespace

std::string optionsReferenceMarkdown() {
  std::ostringstream out;
  out << "Every key of a run file, of a ladder's [model] / [data] / [train] / [squaring] "
         "defaults and of an arm's overrides. Options marked * are not part of the config "
         "hash: changing them (threads, cadences, the device) resumes the same run. A trainer "
         "refuses, by name, a non-default value of an option its task does not use.\n"
         "Options marked † make training targets by running the task's own algorithm: a run "
         "with one off its default is not admissible under the serial benchmark's rules "
         "(`squaring eval`, `status`, exports and plots say so beside its scores).\n";
  for (Section section : allSections()) {
    out << "\n#### " << sectionTitle(section) << "\n\n";
    out << "| key | type | default | allowed | task | what it does |\n";
    out << "|---|---|---|---|---|---|\n";
    for (const OptionSpec& spec : runOptionSchema()) {
      if (spec.section != section) continue;
      out << "| `" << spec.key << "`" << (spec.hashed() ? "" : " *")
          << ((spec.flags & kTaskTargets) ? " †" : "") << " | " << typeWord(spec) << " | `"
          << formatValue(spec.default_value) << "` | " << allowedText(spec) << " | "
          << tasksText(spec) << " | " << spec.help << " |\n";
    }
  }
  return out.str();
}

std::string optionsReferenceText(const std::string& filter) {
  std::ostringstream out;
  for (const OptionSpec& spec : runOptionSchema()) {
    const std::string key = spec.qualifiedKey();
    if (!filter.empty() && key.find(filter) == std::string::npos) continue;
    out << key << " = " << formatValue(spec.default_value) << "    (" << typeWord(spec);
    const std::string allowed = allowedText(spec);
    if (!allowed.empty()) out << ": " << allowed;
    out << "; " << tasksText(spec) << (spec.hashed() ? "" : "; not hashed")
        << ((spec.flags & kTaskTargets) ? "; off its default: not admissible" : "") << ")\n";
    out << "    " << spec.help << "\n";
  }
  return out.str();
}

}  // namespace deepladder::options
