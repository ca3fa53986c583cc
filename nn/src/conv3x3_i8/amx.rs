//! The int8 convolution's sums on AMX tiles ([`super::Int8Kernel::Amx`]).
//!
//! AMX multiplies whole tiles: `tdpbusd` adds the products of a 16 x 64
//! tile of unsigned bytes (16 rows of 64 input bytes) and a 16 x 64 tile of
//! signed bytes (16 groups of four input channels, each holding the four
//! weights of 16 output channels) into a 16 x 16 tile of 32-bit sums:
//! 16,384 multiply-adds an instruction, where a VNNI `vpdpbusd` does 64.
//! Measured on this machine's Xeon (one core, four independent sums): 3.6
//! T multiply-adds a second, about 15 times the VNNI kernel's.
//!
//! A tile's rows must lie at one stride, but a square's nine neighbours
//! do not, so each block of 32 output squares is first copied into rows of
//! `9 * cin_padded` bytes, tap after tap (an im2col of bytes, zeros off
//! the board), padded with zeros to whole steps of 64 bytes. The weights
//! are laid out once, when the network is built, as AMX reads them: each
//! tile of 16 groups x 16 output channels x 4 bytes is 1,024 contiguous
//! bytes (`QuantConv::tiles`), zero groups up to the same whole steps.
//!
//! Rust has no stable AMX intrinsics; the instructions are written in
//! inline assembly, which the assembler knows whatever the target
//! features. Linux gives a process the tile registers only after it asks
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), once.
//! Integer sums do not depend on their order, so this kernel's sums equal
//! the scalar kernel's to the bit.

use std::arch::asm;
use std::sync::OnceLock;

use super::{vnni, Board, QuantConv, AMX_STEP as STEP, GROUP, LANES};

/// Rows of a tile: output squares of one A tile, groups of one B tile.
const TILE_ROWS: usize = 16;
/// Output squares of one block: two A tiles.
const BLOCK: usize = 2 * TILE_ROWS;
/// The most bytes of im2col rows one gather fills (several blocks for
/// narrow layers, one for wide ones): well inside the first-level cache.
const GATHERED: usize = 32 << 10;

/// Whether this CPU has AMX-INT8 and the operating system lets this
/// process use the tiles (asked once, the first time).
pub(super) fn available() -> bool {
    static GRANTED: OnceLock<bool> = OnceLock::new();
    *GRANTED.get_or_init(|| super::has_vnni() && cpu_has_amx_int8() && request_tiles())
}

/// CPUID leaf 7: AMX-TILE (EDX bit 24) and AMX-INT8 (EDX bit 25).
fn cpu_has_amx_int8() -> bool {
    // Leaf 7 reads zeros where the CPU does not have it.
    let leaf7 = std::arch::x86_64::__cpuid_count(7, 0);
    leaf7.edx & (1 << 24) != 0 && leaf7.edx & (1 << 25) != 0
}

/// Asks Linux for the tile data state: `arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA)`, true when granted.
#[cfg(target_os = "linux")]
fn request_tiles() -> bool {
    const SYS_ARCH_PRCTL: i64 = 158;
    const ARCH_REQ_XCOMP_PERM: i64 = 0x1023;
    const XFEATURE_XTILEDATA: i64 = 18;
    let rc: i64;
    // SAFETY: the system call only changes which register state the kernel
    // lets this process use; it reads and writes no memory of ours. The
    // syscall instruction clobbers rcx and r11.
    unsafe {
        asm!("syscall", inlateout("rax") SYS_ARCH_PRCTL => rc, in("rdi") ARCH_REQ_XCOMP_PERM, in("rsi") XFEATURE_XTILEDATA,
             lateout("rcx") _, lateout("r11") _, options(nostack));
    }
    rc == 0
}

/// Other systems: not asked, so not used.
#[cfg(not(target_os = "linux"))]
fn request_tiles() -> bool {
    false
}

/// The tile configuration `ldtilecfg` reads (palette 1): every tile of
/// the eight 16 rows of 64 bytes. tmm0-3 hold sums (two blocks of squares
/// x two blocks of output channels), tmm4-5 input bytes, tmm6-7 weights.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

impl TileConfig {
    fn all_full() -> TileConfig {
        let mut c = TileConfig { palette: 1, start_row: 0, reserved: [0; 14], bytes_per_row: [0; 16], rows: [0; 16] };
        c.bytes_per_row[..8].fill(STEP as u16);
        c.rows[..8].fill(TILE_ROWS as u8);
        c
    }
}

/// [`super::accumulate`] on AMX tiles.
///
/// # Safety
/// [`available`] is true; `src` is whole positions of `board.hw` rows of
/// `q.cin_padded()` bytes, `acc` as many rows of `q.cout_padded()` sums,
/// every tap is below `board.hw`, `board.zeros` holds at least
/// `q.cin_padded()` bytes, and `q.tiles` holds the weights' tiles
/// ([`super::accumulate`] asserts the first four; `QuantConv::new` builds
/// the tiles).
pub(super) unsafe fn accumulate(q: &QuantConv, board: Board, src: &[u8], acc: &mut [i32]) {
    let np = q.cout_padded();
    // SAFETY: the caller's promise.
    unsafe { blocks(q, board, src, |r0, sums| acc[r0 * np..][..sums.len()].copy_from_slice(sums)) };
}

/// [`super::convolve`] on AMX tiles: each block's sums dequantized into
/// `out` while they are in the first-level cache.
///
/// # Safety
/// As [`accumulate`], with `out` `[B*HW, q.cout]` and `scales` one a
/// position ([`super::convolve`] asserts it).
pub(super) unsafe fn convolve(q: &QuantConv, board: Board, src: &[u8], scales: &[f32], out: &mut [f32], relu: bool) {
    let (hw, np, cout) = (board.hw, q.cout_padded(), q.cout);
    let (w_scale, bias) = vnni::padded(q);
    let convolved = |r0: usize, sums: &[i32]| {
        for (i, sums) in sums.chunks_exact(np).enumerate() {
            let r = r0 + i;
            // SAFETY: AVX-512 F is there (`available` checks it); the
            // padded scales, biases and sums hold `np` values, the row `cout`.
            unsafe { vnni::dequantize_row(&w_scale, &bias, sums, scales[r / hw], &mut out[r * cout..][..cout], relu) };
        }
    };
    // SAFETY: the caller's promise.
    unsafe { blocks(q, board, src, convolved) };
}

/// The sums of `src`'s rows, 32 at a time: `done(r0, sums)` gets rows `r0
/// ..` as `sums.len() / cout_padded` rows of sums (32, fewer in the last
/// block).
///
/// # Safety
/// As [`accumulate`].
unsafe fn blocks(q: &QuantConv, board: Board, src: &[u8], mut done: impl FnMut(usize, &[i32])) {
    let (cp, np) = (q.cin_padded(), q.cout_padded());
    let kp = q.k_padded();
    debug_assert_eq!(q.tiles.len(), kp / GROUP * np * GROUP);
    let rows = src.len() / cp;
    // Several blocks of im2col rows at once where they fit in `GATHERED`
    // bytes: a tile load that reads rows the vector stores have only just
    // written waits for them, so each gather runs ahead of the products.
    // The padding past 9 * cp stays zero.
    let per_gather = (GATHERED / (BLOCK * kp)).max(1);
    let mut cols = vec![0u8; per_gather * BLOCK * kp];
    let mut sums = vec![0i32; BLOCK * np];
    let config = TileConfig::all_full();
    // SAFETY: the tiles are granted (the caller checked `available`); the
    // configuration is a valid palette-1 one.
    unsafe { asm!("ldtilecfg [{0}]", in(reg) &config as *const TileConfig, options(nostack, readonly)) };
    let mut r0 = 0;
    while r0 < rows {
        let n = (rows - r0).min(per_gather * BLOCK);
        let used = n.div_ceil(BLOCK) * BLOCK;
        // SAFETY: AVX-512 BW is there (`available` checks VNNI's features);
        // `cols` holds `used` rows of kp >= 9 * cp bytes; the taps are on
        // the board and `zeros` holds cp bytes (the caller's promise).
        unsafe { gather(board, src, cp, r0, n, &mut cols[..used * kp], kp) };
        for (b, cols) in cols[..used * kp].chunks_exact(BLOCK * kp).enumerate() {
            // SAFETY: `cols` holds 32 rows of `kp` bytes, `q.tiles` the
            // tiles of `kp / 64` steps for `np / 16` column blocks, `sums`
            // 32 rows of `np` sums.
            unsafe { block(cols, kp, &q.tiles, np, &mut sums) };
            let rows_here = (n - b * BLOCK).min(BLOCK);
            done(r0 + b * BLOCK, &sums[..rows_here * np]);
        }
        r0 += n;
    }
    // SAFETY: releases the tile state this function configured.
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
}

/// Rows `r0 .. r0 + n` of the im2col of `src` into the first `n` rows of
/// `cols` (rows of `kp` bytes: tap `t`'s `cp` bytes at `t * cp`), the
/// rows after them zeros. Each tap's bytes move in masked 64-byte
/// loads and stores, no call to `memcpy` for a few bytes.
///
/// # Safety
/// The CPU has AVX-512 F and BW; `src` holds whole positions of
/// `board.hw` rows of `cp` bytes, rows `r0 .. r0 + n` among them; every tap
/// is below `board.hw`; `board.zeros` holds `cp` bytes; `cols` holds at
/// least `n` rows of `kp >= 9 * cp` bytes.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn gather(board: Board, src: &[u8], cp: usize, r0: usize, n: usize, cols: &mut [u8], kp: usize) {
    use std::arch::x86_64::*;
    let hw = board.hw;
    let full = cp / STEP;
    let last = cp % STEP;
    let mask: __mmask64 = if last == 0 { 0 } else { (1u64 << last) - 1 };
    for (i, row) in cols.chunks_exact_mut(kp).enumerate() {
        let dst = row.as_mut_ptr();
        // The row's position and square, or none past the last row.
        let (img, taps) = if i < n {
            let (img, sq) = ((r0 + i) / hw, (r0 + i) % hw);
            (&src[img * hw * cp..][..hw * cp], &board.taps[sq * 9..][..9])
        } else {
            (&src[..0], &[-1; 9][..])
        };
        for (t, &tap) in taps.iter().enumerate() {
            let from = if tap < 0 { board.zeros.as_ptr() } else { img[tap as usize * cp..][..cp].as_ptr() };
            // SAFETY: `from` holds cp bytes (a row of the position or the
            // zeros), `dst + t * cp` has cp bytes of the row's first 9 * cp;
            // the loads and stores of the last piece are masked to it.
            unsafe {
                let to = dst.add(t * cp);
                for c in 0..full {
                    _mm512_storeu_si512(to.add(c * STEP) as *mut __m512i, _mm512_loadu_si512(from.add(c * STEP) as *const __m512i));
                }
                if last > 0 {
                    let at = full * STEP;
                    _mm512_mask_storeu_epi8(to.add(at) as *mut i8, mask, _mm512_maskz_loadu_epi8(mask, from.add(at) as *const i8));
                }
            }
        }
    }
}

/// The sums of one block: `out[32][np] = cols[32][kp] x` the weights,
/// given as `tiles` (see `QuantConv::tiles`).
///
/// # Safety
/// The tiles are configured as [`TileConfig::all_full`]; `cols` holds 32
/// rows of `kp` bytes (`kp` a multiple of 64), `tiles` `np / 16` column
/// blocks of `kp / 64` tiles of 1,024 bytes (`np` a multiple of 16), `out`
/// 32 rows of `np` sums.
unsafe fn block(cols: &[u8], kp: usize, tiles: &[i8], np: usize, out: &mut [i32]) {
    const TILE_BYTES: usize = TILE_ROWS * STEP;
    let steps = kp / STEP;
    debug_assert!(cols.len() >= BLOCK * kp && tiles.len() >= np / LANES * steps * TILE_BYTES && out.len() >= BLOCK * np);
    let c_stride = np * 4;
    let a = cols.as_ptr();
    let mut n0 = 0;
    while n0 < np {
        let pair = n0 + LANES < np;
        let b = tiles.as_ptr().add(n0 / LANES * steps * TILE_BYTES);
        // SAFETY (every block below): A tiles read rows 0-15 and 16-31 of
        // `cols`, bytes k0 .. k0 + 64 of each; B tiles read the 1,024-byte
        // tile of step k0 / 64 of column block n0 / 16 (and the next block
        // for a pair); C tiles write rows 0-31 of `out`, output channels n0
        // .. n0 + 16 (.. + 32 for a pair). All of it lies within the slices
        // (see the safety section). The tile registers are no Rust state.
        unsafe {
            asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack, nomem));
            for step in 0..steps {
                let (k0, b0) = (step * STEP, b.add(step * TILE_BYTES));
                if pair {
                    asm!(
                        "tileloadd tmm6, [{b0} + {sb}]",
                        "tileloadd tmm4, [{a0} + {sa}]",
                        "tdpbusd tmm0, tmm4, tmm6",
                        "tileloadd tmm7, [{b1} + {sb}]",
                        "tdpbusd tmm1, tmm4, tmm7",
                        "tileloadd tmm5, [{a1} + {sa}]",
                        "tdpbusd tmm2, tmm5, tmm6",
                        "tdpbusd tmm3, tmm5, tmm7",
                        a0 = in(reg) a.add(k0), a1 = in(reg) a.add(TILE_ROWS * kp + k0), sa = in(reg) kp,
                        b0 = in(reg) b0, b1 = in(reg) b0.add(steps * TILE_BYTES), sb = in(reg) STEP,
                        options(nostack, readonly),
                    );
                } else {
                    asm!(
                        "tileloadd tmm6, [{b0} + {sb}]",
                        "tileloadd tmm4, [{a0} + {sa}]",
                        "tdpbusd tmm0, tmm4, tmm6",
                        "tileloadd tmm5, [{a1} + {sa}]",
                        "tdpbusd tmm2, tmm5, tmm6",
                        a0 = in(reg) a.add(k0), a1 = in(reg) a.add(TILE_ROWS * kp + k0), sa = in(reg) kp,
                        b0 = in(reg) b0, sb = in(reg) STEP,
                        options(nostack, readonly),
                    );
                }
            }
            let c = out.as_mut_ptr().add(n0);
            asm!(
                "tilestored [{c0} + {sc}], tmm0",
                "tilestored [{c1} + {sc}], tmm2",
                c0 = in(reg) c, c1 = in(reg) c.add(TILE_ROWS * np), sc = in(reg) c_stride,
                options(nostack),
            );
            if pair {
                asm!(
                    "tilestored [{c0} + {sc}], tmm1",
                    "tilestored [{c1} + {sc}], tmm3",
                    c0 = in(reg) c.add(LANES), c1 = in(reg) c.add(TILE_ROWS * np + LANES), sc = in(reg) c_stride,
                    options(nostack),
                );
            }
        }
        n0 += if pair { 2 * LANES } else { LANES };
    }
}
