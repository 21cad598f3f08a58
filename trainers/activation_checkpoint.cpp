// Activation checkpointing as a LibTorch autograd function (see activation_checkpoint.h).
#include "trainers/activation_checkpoint.h"

#include <ATen/core/ivalue.h>

#include <unordered_set>
#include <utility>

#include "trainers/precision.h"

namespace deepladder::trainers {

namespace {

// What backward needs besides the saved tensors: the stretch itself, the autocast state it ran
// under, how many extra inputs follow x in the flat input list, and the parameters (inputs too,
// after the extra ones; held here rather than saved, since they are the model's own leaves).
struct Segment : torch::CustomClassHolder {
  SegmentForward forward;
  AutocastState autocast;
  size_t extra_count = 0;
  std::vector<torch::Tensor> parameters;  // distinct
};

// Inputs, flat: [x, extra..., parameters...]; `segment` is not a tensor (no gradient).
struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::TensorList inputs,
                               c10::intrusive_ptr<Segment> segment) {
    const torch::Tensor& x = inputs[0];
    const std::vector<torch::Tensor> extra(inputs.begin() + 1,
                                           inputs.begin() + 1 + segment->extra_count);
    std::vector<torch::Tensor> saved{x};
    saved.insert(saved.end(), extra.begin(), extra.end());
    ctx->save_for_backward(saved);  // the stretch's inputs only: its activations are dropped
    torch::Tensor out = segment->forward(x, extra);  // no-grad here (Function::apply)
    ctx->saved_data["segment"] = c10::IValue::make_capsule(std::move(segment));
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    auto segment =
        c10::static_intrusive_pointer_cast<Segment>(ctx->saved_data["segment"].toCapsule());
    const torch::autograd::variable_list saved = ctx->get_saved_variables();
    // Detached copies: the recomputed graph ends at them, not at the rest of the model's graph.
    std::vector<torch::Tensor> inputs;
    for (const auto& t : saved) inputs.push_back(t.detach().requires_grad_(t.requires_grad()));
    const std::vector<torch::Tensor> extra(inputs.begin() + 1, inputs.end());
    torch::Tensor out;
    {
      torch::AutoGradMode record(true);
      AutocastGuard autocast(segment->autocast);
      out = segment->forward(inputs[0], extra);
    }
    // Differentiate with respect to the inputs that need it and every parameter.
    const std::vector<torch::Tensor>& parameters = segment->parameters;
    std::vector<torch::Tensor> wrt;
    std::vector<size_t> where;  // position in the flat input list
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].requires_grad()) {
        wrt.push_back(inputs[i]);
        where.push_back(i);
      }
    for (size_t j = 0; j < parameters.size(); ++j)
      if (parameters[j].requires_grad()) {
        wrt.push_back(parameters[j]);
        where.push_back(inputs.size() + j);
      }
    torch::autograd::variable_list result(inputs.size() + parameters.size() + 1);  // + segment
    if (wrt.empty() || !out.requires_grad()) return result;
    const torch::autograd::variable_list computed =
        torch::autograd::grad({out}, wrt, {grads[0]}, /*retain_graph=*/false,
                              /*create_graph=*/false, /*allow_unused=*/true);
    for (size_t i = 0; i < computed.size(); ++i) result[where[i]] = computed[i];
    return result;
  }
};

}  // namespace

torch::Tensor checkpointedSegment(const SegmentForward& forward, const torch::Tensor& x,
                                  const std::vector<torch::Tensor>& extra,
                                  const std::vector<torch::Tensor>& parameters) {
  if (!torch::GradMode::is_enabled()) return forward(x, extra);
  std::vector<torch::Tensor> flat{x};
  flat.insert(flat.end(), extra.begin(), extra.end());
  auto segment = c10::make_intrusive<Segment>();
  std::unordered_set<const void*> seen;
  for (const auto& p : parameters)
    if (seen.insert(p.unsafeGetTensorImpl()).second) segment->parameters.push_back(p);
  flat.insert(flat.end(), segment->parameters.begin(), segment->parameters.end());
  segment->forward = forward;
  segment->autocast = AutocastState::current();
  segment->extra_count = extra.size();
  return CheckpointFunction::apply(torch::TensorList(flat), std::move(segment));
}

}  // namespace deepladder::trainers
