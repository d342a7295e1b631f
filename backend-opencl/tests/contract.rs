//! The backend contract (rosetta-core's suite) on every OpenCL device.

rosetta_core::contract_tests!(
    rosetta_core::Api::Opencl,
    rosetta_backend_opencl::discover()
);
