//! rosetta facade
