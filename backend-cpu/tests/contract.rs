//! The backend contract (rosetta-core's suite) on the CPU device.

rosetta_core::contract_tests!(rosetta_core::Api::Cpu, rosetta_backend_cpu::discover());
