//! Rebuilds the crate when the corpus changes: `include_dir!` embeds `cases/` into the binary,
//! and on stable Rust it cannot tell cargo which files it read.

fn main() {
    println!("cargo:rerun-if-changed=cases");
    println!("cargo:rerun-if-changed=VERSION");
    println!("cargo:rerun-if-changed=build.rs");
}
