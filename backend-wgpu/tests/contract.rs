//! The backend contract (rosetta-core's suite) on every wgpu device.

rosetta_core::contract_tests!(rosetta_core::Api::Wgpu, rosetta_backend_wgpu::discover());
