// Activation checkpointing (train.activation_checkpointing): a stretch of a model's forward pass
// run without keeping its intermediate activations, and run again in backward to differentiate
// it. Only the stretch's inputs are kept (its input residual state and any further states it
// reads, e.g. the anchor of the boundary operator), so memory falls from every block's
// activations to one tensor per stretch plus one stretch's activations while it is recomputed,
// for about one extra forward pass of compute.
//
// It is a LibTorch autograd function (torch::autograd::Function): forward runs the stretch under
// no-grad; backward recomputes it with autograd on, from detached copies of the saved inputs and
// with the autocast state the forward ran under (bf16 autocast ends before backward runs, so it
// is restored for the recomputation), then back-propagates the incoming gradient through the
// recomputed graph to the inputs and to every parameter the stretch reads. The gradients equal
// those of the plain forward: the recomputation repeats the same operations on the same values
// (the models here have no dropout or other randomness, so no RNG state has to be replayed).
// A parameter read by several stretches (a tied core looped K times) receives the sum.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace deepladder::trainers {

// The stretch: (x, extra inputs) -> output, reading model parameters through its closure.
using SegmentForward =
    std::function<torch::Tensor(const torch::Tensor& x, const std::vector<torch::Tensor>& extra)>;

// Runs `forward(x, extra)` with activation checkpointing when autograd is recording, and plainly
// otherwise. `parameters` lists every parameter the stretch reads (duplicates are dropped).
torch::Tensor checkpointedSegment(const SegmentForward& forward, const torch::Tensor& x,
                                  const std::vector<torch::Tensor>& extra,
                                  const std::vector<torch::Tensor>& parameters);

}  // namespace deepladder::trainers
