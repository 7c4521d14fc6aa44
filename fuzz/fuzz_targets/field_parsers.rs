//! The free-form field parsers of `leadhub_domain::parse` on arbitrary UTF-8: permit dates, phone
//! numbers, lot sizes, ZIP codes, e-mail addresses, plus state codes, text and URLs. Each input goes
//! through every parser.
//!
//! Checked, beyond "no panic" (what the proptests and `normalize`'s "normalising twice changes
//! nothing more" claim): a normalised value normalises to itself (date as `%Y-%m-%d`, E.164 phone,
//! ZIP, e-mail, text, URL, state code); lot sizes are finite and not negative; ZIPs are 5 or 10
//! characters; e-mails have one `@` and no whitespace; URLs are http(s).
#![no_main]

use leadhub_domain::parse::{
    clean_text, normalize_email, normalize_phone, normalize_url, normalize_zip,
    parse_lot_size_acres, parse_permit_date_as_of, url_domain, StateCode,
};
use libfuzzer_sys::fuzz_target;

const YEAR: i32 = 2026;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };

    if let Some(date) = parse_permit_date_as_of(s, YEAR) {
        let iso = date.format("%Y-%m-%d").to_string();
        assert_eq!(parse_permit_date_as_of(&iso, YEAR), Some(date), "{iso}");
    }
    // Absurd "current years" must not panic either (two-digit years are placed relative to it).
    for year in [i32::MIN, -1, 0, 99, i32::MAX] {
        let _ = parse_permit_date_as_of(s, year);
    }

    if let Some(phone) = normalize_phone(s) {
        assert!(phone.starts_with("+1"), "{phone}");
        assert_eq!(normalize_phone(&phone).as_deref(), Some(phone.as_str()));
    }

    if let Some(acres) = parse_lot_size_acres(s) {
        assert!(acres.is_finite() && acres >= 0.0, "{acres}");
    }

    if let Some(zip) = normalize_zip(s) {
        assert!(zip.len() == 5 || zip.len() == 10, "{zip}");
        assert_eq!(normalize_zip(&zip).as_deref(), Some(zip.as_str()));
    }

    if let Some(email) = normalize_email(s) {
        assert!(!email.chars().any(char::is_whitespace), "{email:?}");
        assert_eq!(email.matches('@').count(), 1, "{email:?}");
        assert_eq!(normalize_email(&email).as_deref(), Some(email.as_str()));
    }

    if let Some(state) = StateCode::parse(s) {
        assert_eq!(StateCode::parse(state.as_str()), Some(state));
    }

    if let Some(text) = clean_text(s) {
        assert!(!text.contains("  ") && text.trim() == text, "{text:?}");
        assert_eq!(clean_text(&text).as_deref(), Some(text.as_str()));
    }

    if let Some(url) = normalize_url(s) {
        assert!(
            url.starts_with("http://") || url.starts_with("https://"),
            "{url}"
        );
        assert_eq!(normalize_url(&url).as_deref(), Some(url.as_str()));
    }
    let _ = url_domain(s);
});
