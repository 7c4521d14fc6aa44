//! A `GeocodeCache` held in memory: for tests, benchmarks and runs without a database. Production
//! uses the database's cache so every process on one database shares answers.
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;
use leadhub_domain::enrich::{CachedGeocode, GeocodeCache};
use leadhub_domain::store::StoreResult;

#[derive(Debug, Default)]
pub struct MemoryGeocodeCache {
    answers: Mutex<HashMap<String, CachedGeocode>>,
}

impl MemoryGeocodeCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// How many addresses are remembered.
    pub fn len(&self) -> usize {
        self.answers().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn answers(&self) -> std::sync::MutexGuard<'_, HashMap<String, CachedGeocode>> {
        // Every write leaves the map whole, so a poisoned lock is still usable.
        self.answers.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl GeocodeCache for MemoryGeocodeCache {
    async fn get(&self, address_key: &str) -> StoreResult<Option<CachedGeocode>> {
        Ok(self.answers().get(address_key).cloned())
    }

    async fn put(&self, address_key: &str, entry: CachedGeocode) -> StoreResult<()> {
        self.answers().insert(address_key.to_string(), entry);
        Ok(())
    }
}
