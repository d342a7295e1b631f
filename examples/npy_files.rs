//! Reading and writing `.npy` files (the `cli` feature), running an op on
//! them: the library side of `rosetta run`.
//!
//! ```text
//! cargo run --example npy_files --features cli
//! python3 -c "import numpy; print(numpy.load('/tmp/rosetta-example-cumsum.npy'))"
//! ```

use rosetta::kernels::op::ArrayData;
use rosetta::npy::{self, Array};
use rosetta::{discover, Api};

fn main() -> Result<(), rosetta::Error> {
    let dir = std::env::temp_dir();
    let input = dir.join("rosetta-example-x.npy");
    let output = dir.join("rosetta-example-cumsum.npy");

    // Write a 2×3 int32 array, as numpy.save would.
    let x = Array::new(vec![2, 3], ArrayData::I32(vec![1, 2, 3, 4, 5, 6]))?;
    npy::write(&input, &x)?;

    // Read it back (shape, element type and length are all checked), run the
    // prefix sum on the first device found, and write the result.
    let read = npy::read(&input)?;
    let device = discover(&Api::ALL).select(&["all"])?.remove(0);
    let ArrayData::I32(values) = &read.data else {
        return Err(rosetta::Error::Usage("expected int32".into()));
    };
    let sums = device.scan(values)?;
    npy::write(
        &output,
        &Array::new(vec![sums.len()], ArrayData::I32(sums.clone()))?,
    )?;
    println!("{} -> {}: {sums:?}", input.display(), output.display());
    assert_eq!(sums, vec![1, 3, 6, 10, 15, 21]);
    Ok(())
}
