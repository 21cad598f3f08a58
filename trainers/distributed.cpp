// Data parallelism over c10d (see distributed.h): rendezvous parsing, the TCPStore and process
// group, bucketed collectives and sharded per-tensor work.
//
// The c10d headers guard their process groups with USE_C10D_GLOO / USE_C10D_NCCL, which PyTorch's
// own build defines; we define them here, before the includes, when the backend is available:
// Gloo whenever its headers are (Debian: libgloo-dev), NCCL only when the build asks for it with
// DEEPLADDER_WITH_NCCL (trainers/CMakeLists.txt: a CUDA LibTorch and nccl.h; the CPU build must
// not see ProcessGroupNCCL.hpp).
#if __has_include(<gloo/config.h>) && !defined(USE_C10D_GLOO)
#define USE_C10D_GLOO
#endif
#if defined(DEEPLADDER_WITH_NCCL) && !defined(USE_C10D_NCCL)
#define USE_C10D_NCCL
#endif

#include "trainers/distributed.h"

#include <torch/version.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef USE_C10D_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#ifdef USE_C10D_NCCL
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <numeric>

#include "core/errors.h"

namespace deepladder::trainers::distributed {

namespace {

// LibTorch 2.x splits ProcessGroup (the front) from Backend (Gloo, NCCL); 1.13 has only the former.
#if TORCH_VERSION_MAJOR >= 2
using Collectives = ::c10d::Backend;
#else
using Collectives = ::c10d::ProcessGroup;
#endif
using WorkPtr = c10::intrusive_ptr<::c10d::Work>;
using Clock = std::chrono::steady_clock;

// --- the store --------------------------------------------------------------------------------

// LibTorch 2.4 made libuv the TCPStore's default server backend, but a LibTorch built without
// libuv (Debian's) refuses that default at construction ("use_libuv was requested but PyTorch was
// build without libuv support"). Where the option exists, a store that libuv cannot serve is
// built again on the classic backend, which every build has. (The first overload, preferred by
// its int parameter, exists only where TCPStoreOptions has useLibUV.)
template <typename Options>
auto withoutLibuv(Options options, int) -> decltype(options.useLibUV, std::optional<Options>()) {
  if (!options.useLibUV) return std::nullopt;
  options.useLibUV = false;
  return options;
}
template <typename Options>
std::optional<Options> withoutLibuv(const Options&, long) {
  return std::nullopt;  // an older LibTorch: the classic backend is the only one
}

c10::intrusive_ptr<::c10d::TCPStore> connectStore(const std::string& host,
                                                  const ::c10d::TCPStoreOptions& options) {
  try {
    return c10::make_intrusive<::c10d::TCPStore>(host, options);
  } catch (const c10::Error& e) {
    const auto classic = withoutLibuv(options, 0);
    if (!classic || std::string(e.what()).find("libuv") == std::string::npos) throw;
    return c10::make_intrusive<::c10d::TCPStore>(host, *classic);
  }
}

// --- collectives -----------------------------------------------------------------------------

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Waits for every work item and turns any failure into PeerLostError.
void waitAll(std::vector<WorkPtr>& works, const std::string& what, int rank) {
  std::string failure;
  for (auto& work : works) {
    try {
      work->wait();
    } catch (const std::exception& e) {
      if (failure.empty()) failure = e.what();
    }
  }
  if (!failure.empty())
    throw PeerLostError(what + " failed on rank " + std::to_string(rank) +
                        ": a peer rank died or did not answer within the timeout (" + failure +
                        ")");
}

// Runs `launch` (which starts collectives) and converts a synchronous failure too.
template <typename Launch>
WorkPtr start(Launch&& launch, const std::string& what, int rank) {
  try {
    return launch();
  } catch (const std::exception& e) {
    throw PeerLostError(what + " could not start on rank " + std::to_string(rank) + ": " +
                        e.what());
  }
}

// Consecutive runs of tensors with the same dtype and device, about `bucket_bytes` each.
std::vector<std::vector<torch::Tensor>> packBuckets(const std::vector<torch::Tensor>& tensors,
                                                    int64_t bucket_bytes) {
  std::vector<std::vector<torch::Tensor>> buckets;
  int64_t bytes = 0;
  for (const auto& t : tensors) {
    if (!t.defined() || t.numel() == 0) continue;
    const int64_t size = t.numel() * static_cast<int64_t>(t.element_size());
    const bool fits = !buckets.empty() && bytes + size <= bucket_bytes &&
                      buckets.back().front().scalar_type() == t.scalar_type() &&
                      buckets.back().front().device() == t.device();
    if (!fits) {
      buckets.emplace_back();
      bytes = 0;
    }
    buckets.back().push_back(t);
    bytes += size;
  }
  return buckets;
}

torch::Tensor flatten(const std::vector<torch::Tensor>& members) {
  if (members.size() == 1 && members[0].is_contiguous()) return members[0].detach().view({-1});
  std::vector<torch::Tensor> views;
  views.reserve(members.size());
  for (const auto& t : members) views.push_back(t.detach().reshape({-1}));
  return torch::cat(views);
}

void unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& members) {
  if (members.size() == 1 && members[0].is_contiguous() && flat.data_ptr() == members[0].data_ptr())
    return;  // reduced in place
  int64_t offset = 0;
  for (const auto& t : members) {
    t.detach().copy_(flat.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
}

// A bitwise fingerprint of one tensor: its raw words times position weights, summed in int64.
int64_t fingerprint(const torch::Tensor& tensor) {
  torch::NoGradGuard no_grad;
  torch::Tensor flat = tensor.detach().to(torch::kCPU).contiguous().view({-1});
  const auto element = flat.element_size();
  const torch::ScalarType word = element == 8   ? torch::kInt64
                                 : element == 4 ? torch::kInt32
                                 : element == 2 ? torch::kInt16
                                                : torch::kUInt8;
  flat = flat.view(word);
  constexpr int64_t kChunk = 1 << 20;
  int64_t total = 0;
  for (int64_t begin = 0; begin < flat.numel(); begin += kChunk) {
    const int64_t n = std::min(kChunk, flat.numel() - begin);
    const auto weights = torch::arange(begin, begin + n, torch::kInt64).remainder(1000003).add(1);
    total += flat.narrow(0, begin, n).to(torch::kInt64).mul(weights).sum().item<int64_t>();
  }
  return total;
}

// Flattens `tensors` into buckets, starts one collective per bucket (all in flight at once), waits
// for them, then hands each flat bucket and its tensors to `finish`.
template <typename Launch, typename Finish>
void runBucketed(const std::vector<torch::Tensor>& tensors, int64_t bucket_bytes, int rank,
                 const char* op, const char* what, Launch&& launch, Finish&& finish) {
  const auto buckets = packBuckets(tensors, bucket_bytes);
  std::vector<torch::Tensor> flats;
  std::vector<WorkPtr> works;
  for (const auto& bucket : buckets) {
    flats.push_back(flatten(bucket));
    std::vector<at::Tensor> io{flats.back()};
    works.push_back(start([&] { return launch(io); }, op, rank));
  }
  waitAll(works, what, rank);
  for (size_t i = 0; i < buckets.size(); ++i) finish(flats[i], buckets[i]);
}

}  // namespace

// --- the context -----------------------------------------------------------------------------

struct DistributedContext::Group {
  c10::intrusive_ptr<::c10d::Store> store;
  c10::intrusive_ptr<Collectives> collectives;
  std::string backend;
  torch::Device scalar_device = torch::kCPU;  // where scalars travel (CUDA for NCCL)
};

DistributedContext::DistributedContext(RendezvousInfo where, DistributedOptions options)
    : where_(std::move(where)), options_(std::move(options)) {}

DistributedContext::~DistributedContext() = default;

std::string DistributedContext::backendName() const {
  return group_ ? group_->backend : std::string("single");
}

std::unique_ptr<DistributedContext> DistributedContext::connect(const RendezvousInfo& where,
                                                                const DistributedOptions& options) {
  std::unique_ptr<DistributedContext> context(new DistributedContext(where, options));
  if (where.world_size <= 1) return context;
  if (where.rank < 0 || where.rank >= where.world_size)
    throw std::invalid_argument("DistributedContext: rank " + std::to_string(where.rank) + " of " +
                                std::to_string(where.world_size));
  std::string backend = options.backend;
  if (backend == "auto") backend = options.device.rfind("cuda", 0) == 0 ? "nccl" : "gloo";

  auto group = std::make_unique<Group>();
  group->backend = backend;
  const std::string where_text = where.master_addr + ":" + std::to_string(where.master_port);
  try {
    ::c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<std::uint16_t>(where.master_port);
    store_options.isServer = where.rank == 0;
    store_options.numWorkers = static_cast<std::size_t>(where.world_size);
    store_options.waitWorkers = true;
    store_options.timeout = options.connect_timeout;
    group->store = connectStore(where.master_addr, store_options);
    // Everyone present before the process group starts its (shorter) collective timeout.
    std::vector<std::string> keys;
    for (int r = 0; r < where.world_size; ++r)
      keys.push_back("deepladder/joined/" + std::to_string(r));
    group->store->set(keys[static_cast<size_t>(where.rank)], std::vector<uint8_t>{1});
    group->store->wait(keys, options.connect_timeout);
    group->store->setTimeout(options.timeout);
  } catch (const std::exception& e) {
    throw PeerLostError("rank " + std::to_string(where.rank) + ": rendezvous at " + where_text +
                        " failed (" + e.what() + "). Check MASTER_ADDR/MASTER_PORT and that all " +
                        std::to_string(where.world_size) + " ranks start");
  }

  try {
    if (backend == "gloo") {
#ifdef USE_C10D_GLOO
      auto gloo = ::c10d::ProcessGroupGloo::Options::create(options.timeout);
      const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
      const bool loopback =
          where.master_addr == "localhost" || where.master_addr.rfind("127.", 0) == 0;
      if (interface && *interface)
        gloo->devices.push_back(::c10d::ProcessGroupGloo::createDeviceForInterface(interface));
      else if (loopback)
        gloo->devices.push_back(::c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
      else
        gloo->devices.push_back(::c10d::ProcessGroupGloo::createDefaultDevice());
      group->collectives = c10::make_intrusive<::c10d::ProcessGroupGloo>(group->store, where.rank,
                                                                         where.world_size, gloo);
#else
      throw UserError("this worker was built without Gloo (no gloo headers), so it cannot run " +
                      std::to_string(where.world_size) + " ranks on the CPU. Rebuild with them");
#endif
    } else if (backend == "nccl") {
#ifdef USE_C10D_NCCL
      c10::cuda::set_device(static_cast<c10::DeviceIndex>(where.local_rank));
      auto nccl = ::c10d::ProcessGroupNCCL::Options::create();
      nccl->timeout = options.timeout;
      group->collectives = c10::make_intrusive<::c10d::ProcessGroupNCCL>(group->store, where.rank,
                                                                         where.world_size, nccl);
      group->scalar_device = torch::Device(torch::kCUDA, where.local_rank);
#else
      throw UserError(
          "this worker was built without NCCL (CMake found no nccl.h beside its LibTorch): "
          "against a CUDA LibTorch, install libnccl-dev (or pip's nvidia-nccl-cu12) and "
          "rebuild, or train on the CPU (Gloo)");
#endif
    } else {
      throw UserError("distributed backend \"" + backend + "\" is unknown; use gloo or nccl");
    }
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    throw PeerLostError("rank " + std::to_string(where.rank) + ": building the " + backend +
                        " process group via " + where_text + " failed (" + e.what() + ")");
  }
  context->group_ = std::move(group);
  return context;
}

void DistributedContext::allReduceMean(const std::vector<torch::Tensor>& tensors) {
  if (!group_) return;
  torch::NoGradGuard no_grad;
  const auto begin = Clock::now();
  runBucketed(
      tensors, options_.bucket_bytes, rank(), "all-reduce", "gradient all-reduce",
      [&](std::vector<at::Tensor>& io) { return group_->collectives->allreduce(io); },
      [&](torch::Tensor& flat, const std::vector<torch::Tensor>& bucket) {
        flat.div_(worldSize());
        unflatten(flat, bucket);
      });
  communication_seconds_ += secondsSince(begin);
}

void DistributedContext::averageGradients(const std::vector<torch::Tensor>& parameters) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : parameters)
    if (p.grad().defined()) grads.push_back(p.grad());
  allReduceMean(grads);
}

double DistributedContext::globalMean(double value) {
  if (!group_) return value;
  const auto begin = Clock::now();
  std::vector<at::Tensor> io{
      torch::full({1}, value, torch::TensorOptions(torch::kFloat64).device(group_->scalar_device))};
  std::vector<WorkPtr> works{
      start([&] { return group_->collectives->allreduce(io); }, "all-reduce", rank())};
  waitAll(works, "loss all-reduce", rank());
  communication_seconds_ += secondsSince(begin);
  return io[0].item<double>() / worldSize();
}

void DistributedContext::broadcastFromRoot(const std::vector<torch::Tensor>& tensors) {
  if (!group_) return;
  torch::NoGradGuard no_grad;
  const auto begin = Clock::now();
  runBucketed(
      tensors, options_.bucket_bytes, rank(), "broadcast", "parameter broadcast",
      [&](std::vector<at::Tensor>& io) { return group_->collectives->broadcast(io); },
      [&](torch::Tensor& flat, const std::vector<torch::Tensor>& bucket) {
        if (!isRoot()) unflatten(flat, bucket);
      });
  communication_seconds_ += secondsSince(begin);
}

void DistributedContext::requireEqualAcrossRanks(const std::vector<torch::Tensor>& tensors,
                                                 const std::string& what) {
  if (!group_) return;
  std::vector<int64_t> prints;
  prints.reserve(tensors.size());
  for (const auto& t : tensors) prints.push_back(t.defined() ? fingerprint(t) : 0);
  if (prints.empty()) return;
  auto local = torch::tensor(prints, torch::kInt64).to(group_->scalar_device);
  std::vector<at::Tensor> high{local.clone()};
  std::vector<at::Tensor> low{local.clone()};
  ::c10d::AllreduceOptions max_options;
  max_options.reduceOp = ::c10d::ReduceOp::MAX;
  ::c10d::AllreduceOptions min_options;
  min_options.reduceOp = ::c10d::ReduceOp::MIN;
  std::vector<WorkPtr> works{
      start([&] { return group_->collectives->allreduce(high, max_options); }, "check", rank())};
  waitAll(works, "equality check", rank());
  works = {
      start([&] { return group_->collectives->allreduce(low, min_options); }, "check", rank())};
  waitAll(works, "equality check", rank());
  const auto differs = high[0].ne(low[0]).to(torch::kCPU);
  for (int64_t i = 0; i < differs.numel(); ++i)
    if (differs[i].item<bool>())
      throw std::runtime_error(what + " differ across ranks (tensor #" + std::to_string(i) +
                               " of " + std::to_string(tensors.size()) + ", shape " +
                               c10::str(tensors[i].sizes()) + ")");
}

void DistributedContext::barrier() {
  if (!group_) return;
  std::vector<WorkPtr> works{
      start([&] { return group_->collectives->barrier(); }, "barrier", rank())};
  waitAll(works, "barrier", rank());
}

void DistributedContext::allGatherFlat(const torch::Tensor& local,
                                       std::vector<torch::Tensor>& gathered) {
  gathered.clear();
  for (int r = 0; r < worldSize(); ++r) gathered.push_back(torch::empty_like(local));
  std::vector<std::vector<at::Tensor>> outputs{gathered};
  std::vector<at::Tensor> inputs{local};
  std::vector<WorkPtr> works{
      start([&] { return group_->collectives->allgather(outputs, inputs); }, "all-gather", rank())};
  waitAll(works, "all-gather", rank());
  gathered = outputs[0];
}

}  // namespace deepladder::trainers::distributed
