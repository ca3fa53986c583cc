//! The `info` line, written by this engine and read from others (the
//! arena's UCI client reads its `nodes`).
//!
//! | key | value |
//! |---|---|
//! | `depth` | a whole number |
//! | `multipv` | the rank of the line's turn, from 1 |
//! | `score` | `cp <centipawns>` or `mate <turns>` (negative: the mover is mated), then optionally `lowerbound`/`upperbound` |
//! | `wdl` | win, draw and loss in per mille |
//! | `nodes`, `nps`, `time` | simulations (nodes), their rate per second, milliseconds |
//! | `pv` | the moves to the end of the line |
//! | `string` | free text to the end of the line (not a figure: [`Info::parse`] reads no such line) |
//!
//! Other keys another engine writes (`seldepth`, `hashfull`, `tbhits`, ...)
//! are read past, one value each.

use std::fmt;

/// A line's score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (see [`super::score::centipawns`]).
    Cp(i32),
    /// A forced win in this many of the mover's turns; negative when the
    /// mover is mated in that many of the opponent's.
    Mate(i64),
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// The figures of one `info` line; a figure the line lacks is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    pub depth: Option<u64>,
    pub multipv: Option<usize>,
    pub score: Option<Score>,
    pub wdl: Option<[u32; 3]>,
    pub nodes: Option<u64>,
    pub nps: Option<u64>,
    pub time_ms: Option<u64>,
    pub pv: Vec<String>,
}

impl fmt::Display for Info {
    /// `info` and the figures present, in the order of the table above.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(d) = self.depth {
            write!(f, " depth {d}")?;
        }
        if let Some(k) = self.multipv {
            write!(f, " multipv {k}")?;
        }
        if let Some(s) = self.score {
            write!(f, " score {s}")?;
        }
        if let Some([w, d, l]) = self.wdl {
            write!(f, " wdl {w} {d} {l}")?;
        }
        if let Some(n) = self.nodes {
            write!(f, " nodes {n}")?;
        }
        if let Some(r) = self.nps {
            write!(f, " nps {r}")?;
        }
        if let Some(t) = self.time_ms {
            write!(f, " time {t}")?;
        }
        if !self.pv.is_empty() {
            write!(f, " pv {}", self.pv.join(" "))?;
        }
        Ok(())
    }
}

impl Info {
    /// The figures of an `info` line; `None` for any other line and for
    /// `info string ...`. A figure that is not a number is left out, not
    /// an error: another engine's line is read for what it can tell.
    pub fn parse(line: &str) -> Option<Info> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"info") || words.get(1) == Some(&"string") {
            return None;
        }
        let mut info = Info::default();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
        let mut i = 1;
        while i < words.len() {
            match words[i] {
                "string" => break,
                "pv" => {
                    info.pv = words[i + 1..].iter().map(|w| w.to_string()).collect();
                    break;
                }
                "depth" => info.depth = number(i + 1),
                "multipv" => info.multipv = number(i + 1).map(|k| k as usize),
                "nodes" => info.nodes = number(i + 1),
                "nps" => info.nps = number(i + 1),
                "time" => info.time_ms = number(i + 1),
                "score" => {
                    let value = words.get(i + 2);
                    info.score = match words.get(i + 1) {
                        Some(&"cp") => value.and_then(|w| w.parse().ok()).map(Score::Cp),
                        Some(&"mate") => value.and_then(|w| w.parse().ok()).map(Score::Mate),
                        _ => None,
                    };
                    i += 3;
                    while matches!(words.get(i), Some(&"lowerbound") | Some(&"upperbound")) {
                        i += 1;
                    }
                    continue;
                }
                "wdl" => {
                    let three: Vec<u32> = (1..=3).filter_map(|k| words.get(i + k).and_then(|w| w.parse().ok())).collect();
                    info.wdl = <[u32; 3]>::try_from(three).ok();
                    i += 4;
                    continue;
                }
                _ => {}
            }
            i += 2;
        }
        Some(info)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_this_engine_writes_reads_back() {
        let info = Info {
            depth: Some(3),
            multipv: Some(2),
            score: Some(Score::Mate(-2)),
            wdl: Some([0, 10, 990]),
            nodes: Some(400),
            nps: Some(8000),
            time_ms: Some(50),
            pv: vec!["e2e4".into(), "e7e5".into()],
        };
        let text = info.to_string();
        assert_eq!(text, "info depth 3 multipv 2 score mate -2 wdl 0 10 990 nodes 400 nps 8000 time 50 pv e2e4 e7e5");
        assert_eq!(Info::parse(&text), Some(info));
        let cp = Info { score: Some(Score::Cp(-74)), ..Info::default() };
        assert_eq!(Info::parse(&cp.to_string()), Some(cp));
    }

    #[test]
    fn another_engines_lines_give_their_figures() {
        let fs =
            Info::parse("info depth 5 seldepth 6 multipv 1 score cp -74 lowerbound nodes 1000 nps 125000 hashfull 3 tbhits 0 time 8 pv d8d6 e2e4").unwrap();
        assert_eq!((fs.depth, fs.multipv, fs.score, fs.nodes, fs.nps, fs.time_ms), (Some(5), Some(1), Some(Score::Cp(-74)), Some(1000), Some(125000), Some(8)));
        assert_eq!(fs.pv, ["d8d6", "e2e4"]);
        assert_eq!(Info::parse("info depth 1 nodes 7").unwrap().nodes, Some(7));
        assert_eq!(Info::parse("info nodes many depth 2").unwrap(), Info { depth: Some(2), ..Info::default() });
        assert_eq!(Info::parse("info wdl 1 2").unwrap().wdl, None);
        for not_figures in ["info string nodes are many", "bestmove e2e4 nodes 5", "", "information nodes 5"] {
            assert_eq!(Info::parse(not_figures), None, "{not_figures:?}");
        }
    }
}
