// conv1d — not yet written for this language (see mod.rs for the interface)
