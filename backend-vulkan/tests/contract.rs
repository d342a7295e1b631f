//! The backend contract (rosetta-core's suite) on every Vulkan device.

rosetta_core::contract_tests!(
    rosetta_core::Api::Vulkan,
    rosetta_backend_vulkan::discover()
);
