//! Speed of the default network on the default backend.
//!
//! `cargo run --release -p pacozero-train --example bench [blocks channels [threads [seconds]]]`
//! Uses the Paco Ŝako input shape (8x8, 29 bit planes, 10 scalars, 132 policy slots).

use pacozero_data::GameSpec;
use pacozero_nn::{default_device, NetConfig};
use pacozero_train::{bench_net, BenchOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let spec = GameSpec::new("paco", 8, 8, 29, 10, 132, &["first", "second"]).unwrap();
    let net = NetConfig { blocks: arg(0, 6) as u32, channels: arg(1, 64) as u32, ..NetConfig::default_for(&spec) };
    let opts = BenchOptions { threads: arg(2, 0) as usize, min_time: std::time::Duration::from_secs_f64(arg(3, 3) as f64), ..BenchOptions::default() };
    match bench_net(&net, &default_device(), &opts) {
        Ok(r) => print!("{r}"),
        Err(e) => {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
    }
}
