// Rendezvous from the launcher's environment and per-rank batch rows (see rendezvous.h).
#include "trainers/rendezvous.h"

#include <cstdlib>
#include <stdexcept>

#include "core/errors.h"

namespace deepladder::trainers::distributed {

namespace {

int parseIntVariable(const std::string& name, const std::string& text, int min_value) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < min_value || value > 1 << 30)
    throw UserError("environment variable " + name + "=\"" + text + "\" is not an integer >= " +
                    std::to_string(min_value) + ". Fix the launcher's settings");
  return static_cast<int>(value);
}

std::optional<std::string> nonEmpty(const EnvironmentLookup& lookup, const std::string& name) {
  auto value = lookup(name);
  if (value && value->empty()) return std::nullopt;
  return value;
}

void validate(const RendezvousInfo& info, const std::string& rank_var,
              const std::string& world_var) {
  if (info.world_size < 1)
    throw UserError(world_var + " must be at least 1 (it is " + std::to_string(info.world_size) +
                    ")");
  if (info.rank >= info.world_size)
    throw UserError(rank_var + "=" + std::to_string(info.rank) + " is not below " + world_var +
                    "=" + std::to_string(info.world_size) + ". Fix the launcher's settings");
  if (info.master_port < 1 || info.master_port > 65535)
    throw UserError("MASTER_PORT=" + std::to_string(info.master_port) +
                    " is not a TCP port (1..65535)");
}

}  // namespace

int deviceIndexForRank(int local_rank, int visible) {
  return local_rank >= 0 && local_rank < visible ? local_rank : 0;
}

std::string firstSlurmHost(const std::string& nodelist) {
  // The first entry: up to a comma outside brackets.
  std::string entry;
  int depth = 0;
  for (char c : nodelist) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) break;
    entry += c;
  }
  // Each bracket group "[03-04,07]" becomes its first number "03".
  std::string host;
  for (size_t i = 0; i < entry.size(); ++i) {
    if (entry[i] != '[') {
      host += entry[i];
      continue;
    }
    const size_t close = entry.find(']', i);
    if (close == std::string::npos)
      throw UserError("SLURM_NODELIST \"" + nodelist + "\": unbalanced '['. Set MASTER_ADDR");
    const std::string inside = entry.substr(i + 1, close - i - 1);
    host += inside.substr(0, inside.find_first_of(",-"));
    i = close;
  }
  if (host.empty())
    throw UserError("SLURM_NODELIST \"" + nodelist + "\" names no host. Set MASTER_ADDR");
  return host;
}

RendezvousInfo rendezvousFromEnvironment(const EnvironmentLookup& lookup) {
  RendezvousInfo info;
  const auto rank = nonEmpty(lookup, "RANK");
  const auto world = nonEmpty(lookup, "WORLD_SIZE");
  const auto master_addr = nonEmpty(lookup, "MASTER_ADDR");
  const auto master_port = nonEmpty(lookup, "MASTER_PORT");
  if (rank || world) {
    if (!rank || !world)
      throw UserError(std::string("environment: ") + (rank ? "RANK" : "WORLD_SIZE") +
                      " is set but " + (rank ? "WORLD_SIZE" : "RANK") +
                      " is not. Set both (and MASTER_ADDR, MASTER_PORT) or neither");
    info.source = "env";
    info.rank = parseIntVariable("RANK", *rank, 0);
    info.world_size = parseIntVariable("WORLD_SIZE", *world, 1);
    const auto local = nonEmpty(lookup, "LOCAL_RANK");
    info.local_rank = local ? parseIntVariable("LOCAL_RANK", *local, 0) : info.rank;
    if (master_addr)
      info.master_addr = *master_addr;
    else if (info.world_size > 1)
      throw UserError("environment: WORLD_SIZE=" + std::to_string(info.world_size) +
                      " but MASTER_ADDR is not set. Set it to rank 0's host");
    if (master_port) info.master_port = parseIntVariable("MASTER_PORT", *master_port, 1);
    validate(info, "RANK", "WORLD_SIZE");
    return info;
  }
  const auto procid = nonEmpty(lookup, "SLURM_PROCID");
  const auto ntasks = nonEmpty(lookup, "SLURM_NTASKS");
  if (procid && ntasks) {
    info.source = "slurm";
    info.rank = parseIntVariable("SLURM_PROCID", *procid, 0);
    info.world_size = parseIntVariable("SLURM_NTASKS", *ntasks, 1);
    const auto local = nonEmpty(lookup, "SLURM_LOCALID");
    info.local_rank = local ? parseIntVariable("SLURM_LOCALID", *local, 0) : 0;
    if (master_addr) {
      info.master_addr = *master_addr;
    } else if (const auto launch = nonEmpty(lookup, "SLURM_LAUNCH_NODE_IPADDR")) {
      info.master_addr = *launch;
    } else if (const auto nodes = nonEmpty(lookup, "SLURM_JOB_NODELIST")) {
      info.master_addr = firstSlurmHost(*nodes);
    } else if (const auto nodes2 = nonEmpty(lookup, "SLURM_NODELIST")) {
      info.master_addr = firstSlurmHost(*nodes2);
    } else if (info.world_size > 1) {
      throw UserError("Slurm: SLURM_NTASKS=" + std::to_string(info.world_size) +
                      " but neither MASTER_ADDR, SLURM_LAUNCH_NODE_IPADDR nor SLURM_NODELIST is "
                      "set. Set MASTER_ADDR in the job script");
    }
    if (master_port) {
      info.master_port = parseIntVariable("MASTER_PORT", *master_port, 1);
    } else if (const auto job = nonEmpty(lookup, "SLURM_JOB_ID")) {
      info.master_port = 29500 + parseIntVariable("SLURM_JOB_ID", *job, 0) % 10000;
    }
    validate(info, "SLURM_PROCID", "SLURM_NTASKS");
    return info;
  }
  return info;  // a world of one
}

RendezvousInfo rendezvousFromEnvironment() {
  return rendezvousFromEnvironment([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  });
}

RowSlice rowsForRank(int64_t global_rows, int rank, int world_size) {
  if (world_size < 1 || rank < 0 || rank >= world_size)
    throw std::invalid_argument("rowsForRank: rank " + std::to_string(rank) + " of " +
                                std::to_string(world_size));
  if (global_rows % world_size != 0)
    throw UserError("train.batch_size = " + std::to_string(global_rows) +
                    " does not split evenly over " + std::to_string(world_size) +
                    " ranks. Use a multiple of the rank count");
  const int64_t count = global_rows / world_size;
  return {rank * count, count};
}

}  // namespace deepladder::trainers::distributed
