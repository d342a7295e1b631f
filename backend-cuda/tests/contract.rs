//! The backend contract (rosetta-core's suite) on every CUDA device; skipped
//! loudly where CUDA is unavailable, unless `ROSETTA_REQUIRE` names cuda.

rosetta_core::contract_tests!(rosetta_core::Api::Cuda, rosetta_backend_cuda::discover());
