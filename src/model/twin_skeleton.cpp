#include "model/twin_skeleton.hpp"

#include <memory>
#include <vector>

#include "gguf.h"
#include "model/arch_tensors.hpp"
#include "model/gguf_writer.hpp"
#include "model/twin_fill.hpp"

namespace moesweep {

void write_twin_skeleton(const TwinSpec& spec, const RoutingSkew* skew, ggml_type weight_type,
                         const std::filesystem::path& path,
                         const std::function<void()>& between_slabs) {
  ArchDims dims = arch_dims_of(spec.profile);  // the router's bias follows its gating
  dims.mla_split = spec.layout.mla_split;
  const std::vector<ArchTensor> tensors = arch_tensors(dims);
  std::vector<GgufTensorInfo> infos;
  infos.reserve(tensors.size());
  for (const ArchTensor& t : tensors)
    infos.push_back({t.name, skeleton_type(t, weight_type), t.ne});
  std::unique_ptr<gguf_context, decltype(&gguf_free)> meta(make_twin_metadata(spec), &gguf_free);
  const TwinFillContext fill{spec.seed, &spec.profile, skew};
  write_gguf_streamed(path, meta.get(), infos, [&](size_t i, const ByteSink& sink) {
    produce_twin_tensor(tensors[i], infos[i].type, fill, [&](const void* data, size_t bytes) {
      if (between_slabs) between_slabs();
      sink(data, bytes);
    });
  });
}

}  // namespace moesweep
