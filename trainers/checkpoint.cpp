// Checkpoints (see checkpoint.h).
#include "trainers/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "core/disk_full.h"
#include "core/sha256.h"

namespace deepladder::trainers {

namespace fs = std::filesystem;

namespace {

// --- atomic file writing ----------------------------------------------------------------------

// Removes the half-written temporary (a full disk keeps none of it), then throws: a
// DiskFullError when the disk is full (the run is resumable), else a runtime_error.
[[noreturn]] void ioFailure(const std::string& what, const std::string& path,
                            const std::string& temp) {
  const int err = errno;
  ::unlink(temp.c_str());
  const std::string message = what + " " + path + ": " + std::strerror(err);
  if (isDiskFullErrno(err))
    throw DiskFullError(message +
                        ". The disk of the work directory is full: free space, then `deepladder "
                        "resume` continues the run from its last checkpoint");
  throw std::runtime_error(message +
                           ". Check free disk space and permissions of the work directory");
}

void writeFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) ioFailure("cannot create", temp, temp);
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      errno = err;
      ioFailure("cannot write", temp, temp);
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    ioFailure("cannot fsync", temp, temp);
  }
  if (::close(fd) != 0) ioFailure("cannot close", temp, temp);
  if (::rename(temp.c_str(), path.c_str()) != 0) ioFailure("cannot rename into", path, temp);
  const std::string dir = fs::path(path).parent_path().string();
  const int dir_fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string sidecarPath(const std::string& checkpoint) {
  return checkpoint.substr(0, checkpoint.size() - 3) + ".sha256";  // ckpt-N.pt -> ckpt-N.sha256
}

// --- archive layout ---------------------------------------------------------------------------

torch::Tensor scalar(int64_t v) {
  return torch::tensor(v, torch::kInt64);
}
torch::Tensor scalar(double v) {
  return torch::tensor(v, torch::kFloat64);
}

}  // namespace

std::string checkpointPath(const std::string& workdir, int64_t step) {
  return (fs::path(workdir) / ("ckpt-" + std::to_string(step) + ".pt")).string();
}

CheckpointRecord saveCheckpoint(const std::string& workdir, torch::nn::Module& model,
                                const RunOptimizer& optimizer, const TrainingState& state) {
  torch::serialize::OutputArchive archive;
  for (const auto& item : model.named_parameters())
    archive.write("model." + item.key(), item.value().detach().to(torch::kCPU).clone(),
                  /*is_buffer=*/true);
  optimizer.save(archive, "optim.");
  archive.write("state.step", scalar(state.step));
  archive.write("state.tokens", scalar(state.tokens));
  archive.write("state.flops", scalar(state.flops));
  archive.write("state.sampler_position", scalar(state.sampler_position));
  archive.write("state.sampler_windows", scalar(state.sampler_windows));
  archive.write("state.config_hash", c10::IValue(state.config_hash));
  archive.write("state.grown", scalar(static_cast<int64_t>(state.grown ? 1 : 0)));
  archive.write("state.rng_cpu", at::detail::getDefaultCPUGenerator().get_state(), true);

  std::ostringstream stream;
  archive.save_to(stream);
  const std::string bytes = stream.str();

  CheckpointRecord record;
  record.step = state.step;
  record.path = checkpointPath(workdir, state.step);
  record.sha256 = sha256Hex(bytes.data(), bytes.size());
  // The checkpoint first, then its checksum: a crash in between leaves a checkpoint without a
  // sidecar, which a resume skips.
  writeFileAtomically(record.path, bytes);
  try {
    writeFileAtomically(sidecarPath(record.path),
                        record.sha256 + "  " + fs::path(record.path).filename().string() + "\n");
  } catch (const std::exception&) {
    std::error_code ec;
    fs::remove(record.path, ec);  // unusable without its checksum: give its space back
    throw;
  }
  return record;
}

std::vector<CheckpointRecord> listCheckpoints(const std::string& workdir) {
  std::vector<CheckpointRecord> found;
  std::error_code ec;
  if (!fs::is_directory(workdir, ec)) return found;
  static const std::regex pattern(R"(ckpt-(\d+)\.pt)");
  for (const auto& entry : fs::directory_iterator(workdir, ec)) {
    std::smatch match;
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && std::regex_match(name, match, pattern)) {
      CheckpointRecord record;
      // A step too large for int64 (a stray ckpt-<20 digits>.pt) is no checkpoint of ours.
      const std::string digits = match[1].str();
      const auto parsed =
          std::from_chars(digits.data(), digits.data() + digits.size(), record.step);
      if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) continue;
      record.path = entry.path().string();
      found.push_back(record);
    }
  }
  std::sort(found.begin(), found.end(),
            [](const CheckpointRecord& a, const CheckpointRecord& b) { return a.step > b.step; });
  return found;
}

void pruneCheckpoints(const std::string& workdir, int64_t keep) {
  const auto all = listCheckpoints(workdir);
  for (size_t i = static_cast<size_t>(std::max<int64_t>(keep, 0)); i < all.size(); ++i) {
    std::error_code ec;
    fs::remove(all[i].path, ec);
    fs::remove(sidecarPath(all[i].path), ec);
  }
}

namespace {

using LoadOptimizer = std::function<void(torch::serialize::InputArchive&)>;
using PreparePhase = std::function<void(bool grown)>;

// The loader behind the overloads; `optimizer` reads the optimizer state, called after
// `prepare_phase` has run (it may grow the model and rebuild the optimizer). `prepare_phase`
// accepts or refuses (throws) the checkpoint's growth phase.
std::optional<TrainingState> loadNewest(const std::string& workdir, const std::string& config_hash,
                                        torch::nn::Module& model, const LoadOptimizer& optimizer,
                                        std::vector<std::string>* skipped,
                                        const PreparePhase& prepare_phase,
                                        std::optional<int64_t> only_step = std::nullopt);

// The phase check of a model that cannot grow, or has a fixed phase.
PreparePhase requirePhase(bool model_grown) {
  return [model_grown](bool grown) {
    if (grown != model_grown)
      throw std::runtime_error(grown ? "saved after growth; this model has not grown"
                                     : "saved before growth; this model has grown");
  };
}

}  // namespace

std::optional<TrainingState> loadNewestValidCheckpoint(const std::string& workdir,
                                                       const std::string& config_hash,
                                                       torch::nn::Module& model,
                                                       RunOptimizer& optimizer,
                                                       std::vector<std::string>* skipped) {
  return loadNewest(
      workdir, config_hash, model,
      [&](torch::serialize::InputArchive& a) { optimizer.load(a, "optim."); }, skipped,
      requirePhase(false));
}

std::optional<TrainingState> loadNewestValidCheckpoint(const std::string& workdir,
                                                       const std::string& config_hash, GPT& model,
                                                       RunOptimizer& optimizer,
                                                       std::vector<std::string>* skipped) {
  // A checkpoint saved after growth grows the fresh model (and its optimizer) first.
  const PreparePhase grow_to_saved_phase = [&](bool grown) {
    if (grown && !model->grown()) optimizer.grow(model);
    requirePhase(model->grown())(grown);
  };
  return loadNewest(
      workdir, config_hash, *model,
      [&](torch::serialize::InputArchive& a) { optimizer.load(a, "optim."); }, skipped,
      grow_to_saved_phase);
}

std::optional<TrainingState> loadCheckpointWeights(const std::string& workdir,
                                                   const std::string& config_hash, GPT& model,
                                                   std::optional<int64_t> step,
                                                   std::vector<std::string>* skipped) {
  const PreparePhase grow_to_saved_phase = [&](bool grown) {
    if (grown && !model->grown()) model->grow();
    requirePhase(model->grown())(grown);
  };
  return loadNewest(
      workdir, config_hash, *model, [](torch::serialize::InputArchive&) {}, skipped,
      grow_to_saved_phase, step);
}

namespace {

std::optional<TrainingState> loadNewest(const std::string& workdir, const std::string& config_hash,
                                        torch::nn::Module& model, const LoadOptimizer& optimizer,
                                        std::vector<std::string>* skipped,
                                        const PreparePhase& prepare_phase,
                                        std::optional<int64_t> only_step) {
  auto skip = [&](const std::string& path, const std::string& why) {
    if (skipped) skipped->push_back(path + ": " + why);
  };
  for (const auto& candidate : listCheckpoints(workdir)) {
    if (only_step && candidate.step != *only_step) continue;
    try {
      std::string expected;
      {
        std::ifstream sidecar(sidecarPath(candidate.path));
        if (!(sidecar >> expected)) {
          skip(candidate.path, "no checksum sidecar (the write did not finish)");
          continue;
        }
      }
      const std::string bytes = readFile(candidate.path);
      const std::string actual = sha256Hex(bytes.data(), bytes.size());
      if (actual != expected) {
        skip(candidate.path, "checksum mismatch (file is corrupt or torn)");
        continue;
      }
      torch::serialize::InputArchive archive;
      archive.load_from(bytes.data(), bytes.size());
      c10::IValue hash;
      archive.read("state.config_hash", hash);
      if (!config_hash.empty() && hash.toStringRef() != config_hash) {
        skip(candidate.path, "written by a different config (hash " + hash.toStringRef() + ")");
        continue;
      }
      bool grown = false;
      {
        torch::Tensor grown_flag;
        if (archive.try_read("state.grown", grown_flag)) grown = grown_flag.item<int64_t>() != 0;
      }
      prepare_phase(grown);
      // Read everything before changing anything, so a bad file leaves the model untouched.
      std::vector<std::pair<torch::Tensor, torch::Tensor>> copies;
      for (const auto& item : model.named_parameters()) {
        torch::Tensor saved;
        archive.read("model." + item.key(), saved, /*is_buffer=*/true);
        TORCH_CHECK(saved.sizes() == item.value().sizes(), "parameter ", item.key(),
                    " has the wrong shape");
        copies.emplace_back(item.value(), saved);
      }
      torch::Tensor step, tokens, flops, position, rng;
      archive.read("state.step", step);
      archive.read("state.tokens", tokens);
      archive.read("state.flops", flops);
      archive.read("state.sampler_position", position);
      archive.read("state.rng_cpu", rng, true);
      TrainingState state;
      state.step = step.item<int64_t>();
      state.tokens = tokens.item<int64_t>();
      state.flops = flops.item<double>();
      state.sampler_position = position.item<int64_t>();
      torch::Tensor windows;
      if (archive.try_read("state.sampler_windows", windows))
        state.sampler_windows = windows.item<int64_t>();
      state.config_hash = config_hash;
      state.grown = grown;
      // Counters a resume trusts: a file that passes its checksum may still have been made by
      // something else than a trainer.
      if (state.step < 0 || state.tokens < 0 || state.sampler_position < 0 ||
          !std::isfinite(state.flops) || state.flops < 0)
        throw std::runtime_error("its training counters are out of range");
      {
        at::Generator probe = at::detail::createCPUGenerator();
        probe.set_state(rng);  // throws for a state of the wrong size or type
      }
      optimizer(archive);  // reads all, then commits
      at::Generator generator = at::detail::getDefaultCPUGenerator();
      generator.set_state(rng);
      {
        torch::NoGradGuard no_grad;
        for (auto& [param, saved] : copies) param.copy_(saved);
      }
      return state;
    } catch (const std::exception& e) {
      skip(candidate.path, std::string("cannot be loaded: ") + e.what());
    }
  }
  return std::nullopt;
}

}  // namespace

}  // namespace deepladder::trainers
