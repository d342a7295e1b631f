//! vulkan backend
