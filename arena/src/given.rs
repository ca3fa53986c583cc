//! [`Given`]: a value read from the text a user gave, kept with that text.

use std::fmt;
use std::str::FromStr;

/// A value parsed from text, kept with the text as given. The text names
/// the value (a player is called what its spec says on the command line,
/// `ref:quick-0109b14-gen119` rather than the model path it resolves to)
/// and is what files record, so resume checks compare what the user wrote.
/// `Display` writes the text, which parses back to the same value.
///
/// Arguments parse into it (clap reads any `FromStr`), so commands and the
/// libraries they call pass typed values, never spec strings to be parsed
/// again.
#[derive(Clone, Debug, PartialEq)]
pub struct Given<T> {
    text: String,
    value: T,
}

impl<T> Given<T> {
    /// The text as given.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value it parsed to.
    pub fn value(&self) -> &T {
        &self.value
    }
}

impl<T: FromStr<Err = anyhow::Error>> FromStr for Given<T> {
    type Err = anyhow::Error;
    /// The error is flattened into one message with its causes
    /// (`context: cause`), as the argument parser prints only the outer one.
    fn from_str(text: &str) -> anyhow::Result<Given<T>> {
        let value = text.parse().map_err(|e: anyhow::Error| anyhow::anyhow!("{e:#}"))?;
        Ok(Given { text: text.to_string(), value })
    }
}

impl<T> fmt::Display for Given<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Budget, PlayerSpec};

    #[test]
    fn keeps_its_text_and_parses_back_to_the_same_value() {
        let g: Given<PlayerSpec> = "rollout".parse().unwrap();
        assert_eq!(g.text(), "rollout");
        assert_eq!(g.to_string(), "rollout");
        assert!(matches!(g.value(), PlayerSpec::Mcts { budget: Budget::Simulations(64), .. }));
        assert_eq!(g.to_string().parse::<Given<PlayerSpec>>().unwrap(), g);
        // One message, with the cause the context would hide.
        let e = "ref:no-such-reference-network".parse::<Given<PlayerSpec>>().unwrap_err().to_string();
        assert!(e.starts_with("player 'ref:no-such-reference-network': no reference network"), "{e}");
    }
}
