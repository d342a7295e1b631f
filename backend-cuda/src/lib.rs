//! cuda backend
