//! Enums whose values are words: stored and sent in snake case (`lead_buyer`), read
//! case-insensitively with surrounding spaces ignored.

/// Declares such an enum with `as_str`, `parse` and `NAMES` (its words, in declaration order).
macro_rules! word_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $($(#[$variant_meta:meta])* $variant:ident),* $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            strum::EnumString,
            strum::IntoStaticStr,
            strum::Display,
            strum::VariantNames,
        )]
        #[strum(serialize_all = "snake_case", ascii_case_insensitive)]
        pub enum $name {
            $($(#[$variant_meta])* $variant),*
        }

        impl $name {
            pub const NAMES: [&'static str; [$(stringify!($variant)),*].len()] =
                $crate::word_enum::words(<Self as strum::VariantNames>::VARIANTS);

            pub fn as_str(self) -> &'static str {
                self.into()
            }

            /// Case-insensitive, surrounding spaces ignored.
            pub fn parse(s: &str) -> Option<$name> {
                s.trim().parse().ok()
            }
        }
    };
}
pub(crate) use word_enum;

/// An enum's words as an array (clap and the extractors take them so); the build fails when `N`
/// is not the number of variants.
pub(crate) const fn words<const N: usize>(variants: &[&'static str]) -> [&'static str; N] {
    assert!(variants.len() == N, "N must be the number of variants");
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        out[i] = variants[i];
        i += 1;
    }
    out
}
