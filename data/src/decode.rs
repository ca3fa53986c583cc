//! Decoder from the packed row layout to a dense `[C, H, W]` float input.

use crate::schema::{GameSpec, PositionRow};

/// Decode packed `planes` and `scalars` into `out`, laid out as
/// `[bit_planes + scalars, H, W]` (channel-major, then rank, then file).
///
/// * Channel `p < bit_planes`: `out[p][r][f] = 1.0` if bit `r*W + f` of bit
///   plane `p` is set, else `0.0`. Plane `p` occupies words
///   `p*words_per_plane .. (p+1)*words_per_plane` of `planes`; square `i` is
///   bit `i % 64` of word `i / 64` of that range.
/// * Channel `bit_planes + s`: the constant plane `scalars[s]`.
///
/// Panics if the slice lengths do not match the spec (use
/// [`PositionRow::check`] on untrusted rows; the reader already does).
pub fn decode_into(spec: &GameSpec, planes: &[u64], scalars: &[f32], out: &mut [f32]) {
    let sq = spec.squares();
    let wpp = spec.words_per_plane();
    let bp = spec.bit_planes as usize;
    assert_eq!(planes.len(), bp * wpp, "planes length does not match the spec");
    assert_eq!(scalars.len(), spec.scalars as usize, "scalars length does not match the spec");
    assert_eq!(out.len(), spec.input_len(), "output length does not match the spec");
    // Zeros, then a one at each set bit: a position sets few of its bits
    // (72 of Paco Ŝako's 1,984 in self-play), so walking the set bits beats
    // testing every one.
    out[..bp * sq].fill(0.0);
    for p in 0..bp {
        let words = &planes[p * wpp..(p + 1) * wpp];
        let dst = &mut out[p * sq..(p + 1) * sq];
        for (w, &word) in words.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                // Bits past the board's squares (the last word's padding) are not inputs.
                if i < sq {
                    dst[i] = 1.0;
                }
                bits &= bits - 1;
            }
        }
    }
    for (s, &v) in scalars.iter().enumerate() {
        out[(bp + s) * sq..(bp + s + 1) * sq].fill(v);
    }
}

/// Decode one row into a new `Vec<f32>` of shape `[bit_planes + scalars, H, W]`.
pub fn decode_position(spec: &GameSpec, row: &PositionRow) -> Vec<f32> {
    let mut out = vec![0.0; spec.input_len()];
    decode_into(spec, &row.planes, &row.scalars, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decoded input computed from the layout's definition: bit `i` of
    /// a plane is bit `i mod 64` of its `floor(i / 64)`-th word.
    fn by_definition(spec: &GameSpec, planes: &[u64], scalars: &[f32]) -> Vec<f32> {
        let (sq, wpp) = (spec.squares(), spec.words_per_plane());
        let mut out = Vec::new();
        for p in 0..spec.bit_planes as usize {
            for i in 0..sq {
                let word = planes[p * wpp + i / 64];
                out.push(if word & (1u64 << (i % 64)) != 0 { 1.0 } else { 0.0 });
            }
        }
        for &s in scalars {
            out.extend(std::iter::repeat_n(s, sq));
        }
        out
    }

    #[test]
    fn decoding_follows_the_layout_on_both_boards() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for side in [8, 10] {
            let spec = GameSpec::new("t", side, side, 5, 3, 10, &[]).unwrap();
            let planes: Vec<u64> = (0..spec.plane_words()).map(|_| next()).collect();
            let scalars = [0.25, -1.5, 7.0];
            let x = {
                let mut out = vec![f32::NAN; spec.input_len()];
                decode_into(&spec, &planes, &scalars, &mut out);
                out
            };
            assert_eq!(x, by_definition(&spec, &planes, &scalars), "{side}x{side}");
            assert!(x.contains(&1.0) && x.contains(&0.0));
        }
    }
}
