// The enumerated run options (core/options/run_options.h) as C++ enums, each with the names its
// TOML and JSON spelling uses. Code compares enums; only the option schema turns them into
// strings and back. A new enumerated option adds its enum and its kEnumNames line here.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace deepladder {

enum class Task { lm, squaring };
enum class MlpKind { gelu, swiglu };
enum class Arch { vanilla, pcc };
enum class CoreMode { tied, untied };
enum class Positions { rope, learned };
enum class AttentionMask { causal, bidirectional };
enum class InitScheme { gpt2, recipe };
enum class DataKind { builtin, text, shards };
enum class Schedule { cosine, wsd };
enum class OptimizerKind { adamw, muon };
enum class SquaringLayout { separate, causal };
enum class IterationRule { fixed, poisson_lognormal, per_t };
enum class Precision { fp32, bf16 };
enum class ActivationCheckpointing { none, blocks, every_k };
enum class Reentry { off, straight_through, soft };
enum class BuiltinCorpus { kjv, gcide };
// The dtype of a table the trainer computes (rotary_tables, muon_orthogonalization): the same two
// precisions as `precision`, one enum.
using TableDtype = Precision;

// OptionEnum<E>::names[i] is the spelling of the enumerator with value i.
template <class E>
struct OptionEnum;  // defined for option enums only

template <class... Names>
constexpr std::array<std::string_view, sizeof...(Names)> nameList(Names... names) {
  return {names...};
}

#define DEEPLADDER_OPTION_ENUM(E, ...)                   \
  template <>                                            \
  struct OptionEnum<E> {                                 \
    static constexpr auto names = nameList(__VA_ARGS__); \
  };

DEEPLADDER_OPTION_ENUM(Task, "lm", "squaring")
DEEPLADDER_OPTION_ENUM(MlpKind, "gelu", "swiglu")
DEEPLADDER_OPTION_ENUM(Arch, "vanilla", "pcc")
DEEPLADDER_OPTION_ENUM(CoreMode, "tied", "untied")
DEEPLADDER_OPTION_ENUM(Positions, "rope", "learned")
DEEPLADDER_OPTION_ENUM(AttentionMask, "causal", "bidirectional")
DEEPLADDER_OPTION_ENUM(InitScheme, "gpt2", "recipe")
DEEPLADDER_OPTION_ENUM(DataKind, "builtin", "text", "shards")
DEEPLADDER_OPTION_ENUM(Schedule, "cosine", "wsd")
DEEPLADDER_OPTION_ENUM(OptimizerKind, "adamw", "muon")
DEEPLADDER_OPTION_ENUM(SquaringLayout, "separate", "causal")
DEEPLADDER_OPTION_ENUM(IterationRule, "fixed", "poisson_lognormal", "per_t")
DEEPLADDER_OPTION_ENUM(Precision, "fp32", "bf16")
DEEPLADDER_OPTION_ENUM(ActivationCheckpointing, "none", "blocks", "every_k")
DEEPLADDER_OPTION_ENUM(Reentry, "off", "straight_through", "soft")
DEEPLADDER_OPTION_ENUM(BuiltinCorpus, "kjv", "gcide")

#undef DEEPLADDER_OPTION_ENUM

// The spelling of an enumerator ("swiglu"), for messages, JSON and TOML.
template <class E>
std::string enumName(E value) {
  return std::string(OptionEnum<E>::names[static_cast<size_t>(value)]);
}

// The enumerator spelled `name`; nullopt when no enumerator has that spelling.
template <class E>
std::optional<E> enumFromName(std::string_view name) {
  const auto& names = OptionEnum<E>::names;
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

}  // namespace deepladder
