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
//! are already laid out as AMX reads them: [`super::QuantConv`]'s `[9 *
//! cin_padded / 4][cout_padded][4]` is the `[K / 4][N][4]` of a tile of
//! signed bytes, with zero rows up to the same whole steps.
//!
//! Rust has no stable AMX intrinsics; the instructions are written in
//! inline assembly, which the assembler knows whatever the target
//! features. Linux gives a process the tile registers only after it asks
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), once.
//! Integer sums do not depend on their order, so this kernel's sums equal
//! the scalar kernel's to the bit.

use std::arch::asm;
use std::sync::OnceLock;

use super::{Board, QuantConv, AMX_STEP as STEP, GROUP, LANES};

/// Rows of a tile: output squares of one A tile, groups of one B tile.
const TILE_ROWS: usize = 16;
/// Output squares of one block: two A tiles.
const BLOCK: usize = 2 * TILE_ROWS;

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
/// `q.cin_padded()` bytes, and `q.w` holds `q.k_padded() / 4` groups of
/// `q.cout_padded()` x 4 weights ([`super::accumulate`] asserts all of it).
pub(super) unsafe fn accumulate(q: &QuantConv, board: Board, src: &[u8], acc: &mut [i32]) {
    let (hw, cp, np) = (board.hw, q.cin_padded(), q.cout_padded());
    let kp = q.k_padded();
    let rows = src.len() / cp;
    // One block of im2col rows; the padding past 9 * cp stays zero.
    let mut cols = vec![0u8; BLOCK * kp];
    // The sums of a last block of fewer than 32 squares.
    let mut tail = vec![0i32; BLOCK * np];
    let config = TileConfig::all_full();
    // SAFETY: the tiles are granted (the caller checked `available`); the
    // configuration is a valid palette-1 one.
    unsafe { asm!("ldtilecfg [{0}]", in(reg) &config as *const TileConfig, options(nostack, readonly)) };
    let mut r0 = 0;
    while r0 < rows {
        let n = (rows - r0).min(BLOCK);
        for (i, row) in cols.chunks_exact_mut(kp).enumerate() {
            if i >= n {
                row[..9 * cp].fill(0);
                continue;
            }
            let (img, sq) = ((r0 + i) / hw, (r0 + i) % hw);
            for t in 0..9 {
                let from = board.taps[sq * 9 + t];
                let bytes = if from < 0 { &board.zeros[..cp] } else { &src[(img * hw + from as usize) * cp..][..cp] };
                row[t * cp..][..cp].copy_from_slice(bytes);
            }
        }
        let out = if n == BLOCK { &mut acc[r0 * np..][..BLOCK * np] } else { &mut tail[..] };
        // SAFETY: `cols` holds 32 rows of `kp` bytes, `q.w` `kp / 4` rows
        // of `np * 4` bytes (the caller's promise), `out` 32 rows of `np` sums.
        unsafe { block(&cols, kp, &q.w, np, out) };
        if n < BLOCK {
            acc[r0 * np..][..n * np].copy_from_slice(&tail[..n * np]);
        }
        r0 += n;
    }
    // SAFETY: releases the tile state this function configured.
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
}

/// The sums of one block: `out[32][np] = cols[32][kp] x w[kp/4][np][4]`.
///
/// # Safety
/// The tiles are configured as [`TileConfig::all_full`]; `cols` holds 32
/// rows of `kp` bytes (`kp` a multiple of 64), `w` `kp / 4` rows of `np *
/// 4` bytes (`np` a multiple of 16), `out` 32 rows of `np` sums.
unsafe fn block(cols: &[u8], kp: usize, w: &[i8], np: usize, out: &mut [i32]) {
    debug_assert!(cols.len() >= BLOCK * kp && w.len() >= kp / GROUP * np * GROUP && out.len() >= BLOCK * np);
    let (a_stride, w_stride, c_stride) = (kp, np * GROUP, np * 4);
    let a = cols.as_ptr();
    let mut n0 = 0;
    while n0 < np {
        let pair = n0 + LANES < np;
        // SAFETY (every block below): A tiles read rows 0-15 and 16-31 of
        // `cols`, bytes k0 .. k0 + 64 of each; B tiles read groups k0 / 4 ..
        // + 16 of `w`, output channels n0 .. n0 + 16 (and + 16 .. + 32 for a
        // pair), four bytes each; C tiles write rows 0-31 of `out`, the same
        // channels. All of it lies within the slices (see the safety
        // section). The tile registers are no Rust state.
        unsafe {
            asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack, nomem));
            let mut k0 = 0;
            while k0 < kp {
                let b0 = w.as_ptr().add((k0 / GROUP * np + n0) * GROUP);
                if pair {
                    asm!(
                        "tileloadd tmm4, [{a0} + {sa}]",
                        "tileloadd tmm5, [{a1} + {sa}]",
                        "tileloadd tmm6, [{b0} + {sw}]",
                        "tileloadd tmm7, [{b1} + {sw}]",
                        "tdpbusd tmm0, tmm4, tmm6",
                        "tdpbusd tmm1, tmm4, tmm7",
                        "tdpbusd tmm2, tmm5, tmm6",
                        "tdpbusd tmm3, tmm5, tmm7",
                        a0 = in(reg) a.add(k0), a1 = in(reg) a.add(TILE_ROWS * a_stride + k0), sa = in(reg) a_stride,
                        b0 = in(reg) b0, b1 = in(reg) b0.add(LANES * GROUP), sw = in(reg) w_stride,
                        options(nostack, readonly),
                    );
                } else {
                    asm!(
                        "tileloadd tmm4, [{a0} + {sa}]",
                        "tileloadd tmm5, [{a1} + {sa}]",
                        "tileloadd tmm6, [{b0} + {sw}]",
                        "tdpbusd tmm0, tmm4, tmm6",
                        "tdpbusd tmm2, tmm5, tmm6",
                        a0 = in(reg) a.add(k0), a1 = in(reg) a.add(TILE_ROWS * a_stride + k0), sa = in(reg) a_stride,
                        b0 = in(reg) b0, sw = in(reg) w_stride,
                        options(nostack, readonly),
                    );
                }
                k0 += STEP;
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
