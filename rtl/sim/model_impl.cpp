// One model's factory and per-cycle loop (build_model.sh compiles this file once per model, with
// the classes of its node and its fabric in MM_NODE_CLASS and MM_FABRIC_CLASS). Only the factory
// is exported.
#include "model.hpp"

#define MM_EXPORT __attribute__((visibility("default")))
extern "C" MM_EXPORT mmrtl::Model *MM_MODEL_FACTORY();

#include "model_impl.hpp"
