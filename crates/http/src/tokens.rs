//! The `TokenGenerator` adapter: credentials and public ids from the operating system's
//! cryptographically secure generator (rand's thread RNG is a CSPRNG seeded from the OS).
use rand::Rng;

use leadhub_domain::secret::TokenGenerator;

const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const BASE32: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

#[derive(Debug, Default, Clone, Copy)]
pub struct RandomTokens;

/// `len` characters drawn uniformly from `alphabet` (its size divides 256, so `byte % size` is unbiased).
fn draw(alphabet: &[u8], len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| char::from(alphabet[usize::from(rng.random::<u8>()) % alphabet.len()]))
        .collect()
}

impl TokenGenerator for RandomTokens {
    fn secret(&self, prefix: &str) -> String {
        // 43 characters of 6 bits each: 258 random bits.
        format!("{prefix}{}", draw(URL_SAFE, 43))
    }

    fn public_id(&self, prefix: &str) -> String {
        // 26 characters of 5 bits each: 130 random bits.
        format!("{prefix}{}", draw(BASE32, 26))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let key = RandomTokens.secret("lhk_");
        assert_eq!(key.len(), 47);
        assert!(key.starts_with("lhk_"));
        assert_ne!(key, RandomTokens.secret("lhk_"));
        let id = RandomTokens.public_id("usr_");
        assert_eq!(id.len(), 30);
        assert!(id[4..].bytes().all(|b| BASE32.contains(&b)));
    }
}
