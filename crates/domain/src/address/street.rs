//! The street: predirectional, name, C1 suffix, postdirectional.
//!
//! A directional or suffix word is only read as such when a street name is left over;
//! otherwise it is the name ("123 NORTH ST", "45 AVENUE C", "100 COURT ST").

use super::routes;
use super::suffixes;
use super::tokens::is_fraction;
use super::words::{directional, fix_numeral_ordinal, two_word_directional};

/// Suffixes that follow another suffix: "MAIN ST EXT", "OLD RD BYP".
const TRAILING_SUFFIXES: &[&str] = &["EXT", "EXTS", "BYP"];

/// Name words written short or long, made one so "Mt Vernon" meets "Mount Vernon".
const NAME_WORDS: &[(&str, &str)] = &[("SAINT", "ST"), ("MOUNT", "MT"), ("FORT", "FT")];

/// The standard street from its words (after the house number, before any unit).
pub(super) fn standard_street(tokens: &[String]) -> Option<String> {
    let words = split_words(tokens);
    // A street needs a name, and a fraction after the house number is the number's
    // ("123 1/2"), never a street's.
    if words.first().is_none_or(|w| is_fraction(w)) {
        return None;
    }
    if let Some(route) = routes::find(&words) {
        let before = words.get(..route.start)?;
        let after = words.get(route.end..)?;
        let mut out: Vec<String> = before.iter().map(|w| as_directional(w)).collect();
        out.push(route.name);
        out.extend(after.iter().map(|w| as_directional(w)));
        return Some(out.join(" "));
    }
    Some(plain_street(words).join(" "))
}

/// Street words with numeral ordinals corrected and a road type split from its number
/// ("I-35", "FM-1960"); other hyphens stay, as in Lancaster's "AVENUE K-8".
fn split_words(tokens: &[String]) -> Vec<String> {
    let mut words = Vec::with_capacity(tokens.len());
    for token in tokens.iter().filter(|t| *t != "#") {
        match token.split_once('-') {
            Some((road, number)) if routes::is_road_type(road) && !number.is_empty() => {
                words.push(road.to_owned());
                words.push(number.replace('-', ""));
            }
            _ => words.push(fix_numeral_ordinal(token).unwrap_or_else(|| token.clone())),
        }
    }
    words
}

fn as_directional(word: &str) -> String {
    directional(word).map_or_else(|| word.to_owned(), str::to_owned)
}

/// Whether these words can be a street name by themselves: two or more words, or one that is
/// not a suffix ("MAIN" can, "ST" cannot: "NORTH ST" keeps its NORTH).
fn names_a_street(words: &[String]) -> bool {
    match words {
        [] => false,
        [only] => !suffixes::is_suffix(only),
        _ => true,
    }
}

/// A directional at the start (`front`) or end of the words: (standard, words it takes).
/// The longest reading that still leaves a street name wins.
fn directional_at(words: &[String], front: bool) -> Option<(&'static str, usize)> {
    let n = words.len();
    let word = |i: Option<usize>| i.and_then(|i| words.get(i)).map(String::as_str);
    let (a, b) = if front {
        (word(Some(0)), word(Some(1)))
    } else {
        (word(n.checked_sub(2)), word(n.checked_sub(1)))
    };
    let two = a.zip(b).and_then(|(a, b)| two_word_directional(a, b));
    let one = if front { a } else { b }.and_then(directional);
    [two.map(|d| (d, 2)), one.map(|d| (d, 1))]
        .into_iter()
        .flatten()
        .find(|(_, used)| {
            let rest = if front {
                words.get(*used..)
            } else {
                words.get(..n.saturating_sub(*used))
            };
            rest.is_some_and(names_a_street)
        })
}

fn plain_street(mut words: Vec<String>) -> Vec<String> {
    let post = directional_at(&words, false).map(|(d, used)| {
        words.truncate(words.len() - used);
        d
    });
    let pre = directional_at(&words, true).map(|(d, used)| {
        words.drain(..used);
        d
    });
    let mut suffix: Vec<&'static str> = Vec::new();
    if words.len() >= 2 {
        if let Some(std) = words.last().and_then(|w| suffixes::standard(w)) {
            words.pop();
            suffix.push(std);
            // "MAIN STREET EXTENSION": the word before EXT is a suffix too.
            if TRAILING_SUFFIXES.contains(&std) && words.len() >= 2 {
                if let Some(std) = words.last().and_then(|w| suffixes::standard(w)) {
                    words.pop();
                    suffix.insert(0, std);
                }
            }
        }
    }
    if suffix.is_empty() && words.len() >= 2 {
        // "AVE C", "AVENUE OF THE AMERICAS": AVENUE leading the name, spelled out as Pub 28 does.
        if let Some(first) = words.first_mut() {
            if suffixes::standard(first) == Some("AVE") {
                "AVENUE".clone_into(first);
            }
        }
    }
    if words.len() >= 2 {
        if let Some(first) = words.first_mut() {
            if let Some((_, short)) = NAME_WORDS.iter().find(|(long, _)| long == first) {
                (*short).clone_into(first);
            }
        }
        // "MARTIN LUTHER KING JUNIOR BLVD" is "... JR BLVD"; never the first word of a name.
        for word in words.iter_mut().skip(1) {
            if word == "JUNIOR" {
                "JR".clone_into(word);
            }
        }
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len() + 3);
    out.extend(pre.map(str::to_owned));
    out.extend(words);
    out.extend(suffix.into_iter().map(str::to_owned));
    out.extend(post.map(str::to_owned));
    out
}

/// Whether the street words end where a unit may follow: a suffix or postdirectional after a
/// name ("MAIN ST", "MAIN ST NW"), and not a road type whose number comes next ("OLD HWY").
pub(super) fn is_complete(tokens: &[String]) -> bool {
    let words = split_words(tokens);
    let Some(last) = words.last() else {
        return false;
    };
    words.len() >= 2
        && (suffixes::is_suffix(last) || directional(last).is_some())
        && !routes::ends_with_route_type(&words)
}
