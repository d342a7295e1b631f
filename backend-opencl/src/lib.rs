//! opencl backend
