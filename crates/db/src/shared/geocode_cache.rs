//! `GeocodeCache` over `geocode_cache`: results by address key, shared by every process.
use async_trait::async_trait;
use chrono::NaiveDateTime;
use diesel::prelude::*;

use leadhub_domain::enrich::{CachedGeocode, GeocodeCache, GeocodeResult};
use leadhub_domain::store::StoreResult;

use crate::schema::geocode_cache;
use crate::sql::time::{from_db, to_db};
use crate::Database;

#[derive(Queryable, Selectable)]
#[diesel(table_name = geocode_cache)]
struct CacheRow {
    source: String,
    found: bool,
    latitude: Option<f64>,
    longitude: Option<f64>,
    match_type: Option<String>,
    matched_address: Option<String>,
    county_fips: Option<String>,
    created_at: NaiveDateTime,
}

impl From<CacheRow> for CachedGeocode {
    fn from(r: CacheRow) -> Self {
        let result = match (r.found, r.latitude, r.longitude) {
            (true, Some(latitude), Some(longitude)) => Some(GeocodeResult {
                latitude,
                longitude,
                source: r.source,
                match_type: r.match_type.unwrap_or_default(),
                matched_address: r.matched_address,
                county_fips: r.county_fips,
            }),
            _ => None,
        };
        CachedGeocode {
            result,
            cached_at: from_db(r.created_at),
        }
    }
}

#[async_trait]
impl GeocodeCache for Database {
    async fn get(&self, address_key: &str) -> StoreResult<Option<CachedGeocode>> {
        let query = geocode_cache::table.find(address_key.to_owned());
        self.find_first::<CacheRow, _, _>(query.select(CacheRow::as_select()))
            .await
    }

    async fn put(&self, address_key: &str, entry: CachedGeocode) -> StoreResult<()> {
        let key = address_key.to_owned();
        let CachedGeocode {
            result,
            cached_at: at,
        } = entry;
        self.write(move |conn| {
            conn.transaction(|conn| {
                // Delete-then-insert is portable across both backends (MultiConnection has no
                // ON CONFLICT). Two processes caching one key at once: one put fails on the primary
                // key, and callers treat a failed put as a missed cache write, nothing more.
                diesel::delete(geocode_cache::table.find(&key)).execute(conn)?;
                diesel::insert_into(geocode_cache::table)
                    .values((
                        geocode_cache::address_key.eq(&key),
                        geocode_cache::source
                            .eq(result.as_ref().map_or("none", |r| r.source.as_str())),
                        geocode_cache::found.eq(result.is_some()),
                        geocode_cache::latitude.eq(result.as_ref().map(|r| r.latitude)),
                        geocode_cache::longitude.eq(result.as_ref().map(|r| r.longitude)),
                        geocode_cache::match_type.eq(result.as_ref().map(|r| r.match_type.clone())),
                        geocode_cache::matched_address
                            .eq(result.as_ref().and_then(|r| r.matched_address.clone())),
                        geocode_cache::county_fips
                            .eq(result.as_ref().and_then(|r| r.county_fips.clone())),
                        geocode_cache::created_at.eq(to_db(at)),
                    ))
                    .execute(conn)
                    .map(drop)
            })
        })
        .await
    }
}
