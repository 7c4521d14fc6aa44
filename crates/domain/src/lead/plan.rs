//! Same-property planning (contract 3.3): for a batch of normalised leads, in element order,
//! which element creates a lead, which merges into a stored lead or into one an earlier element
//! created, and which changes nothing; which leads need enrichment, and which get a retry queued.
//!
//! Pure: the store takes its write locks, loads the stored leads of the batch's `streets` as
//! `Candidate`s, calls `plan`, and writes what the plan says (new leads, merged leads, the
//! enrichment retry job) in the same transaction.
use std::collections::{BTreeSet, HashMap};

use crate::address::AddressKey;
use crate::lead::barred::BarredNumbers;
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::merge::merge_into;
use crate::lead::record::{EnrichmentStatus, LeadAction, LeadWrite};
use crate::parse::parse_lot_size_acres;

/// Where a property's lead is looked for: one team's leads (`None`: the leads of no team) on one
/// street key (`AddressKey::street_key`: number, street and unit).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Street {
    pub team_id: Option<i64>,
    pub key: String,
}

impl Street {
    /// The street a write's lead is looked for on; `None` without an address key (such a lead
    /// matches nothing).
    pub fn of(write: &LeadWrite) -> Option<Street> {
        let key = write.lead.address_key.as_ref()?;
        Some(Street {
            team_id: write.team_id,
            key: key.street_key(),
        })
    }
}

/// The streets whose stored leads `plan` must be given, each once.
pub fn streets<'a>(writes: impl IntoIterator<Item = &'a LeadWrite>) -> BTreeSet<Street> {
    writes.into_iter().filter_map(Street::of).collect()
}

/// A stored lead on one of the batch's streets: one an element may be the same property as.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: i64,
    pub street: Street,
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    pub has_appraisal: bool,
    pub enrichment_status: EnrichmentStatus,
    pub submission_count: i32,
    /// Its barred numbers (`LeadWork::barred`): a merge does not add them back.
    pub barred: BarredNumbers,
}

/// A lead of the plan: stored before the batch (its id), or the plan's `n`-th new lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlannedLead {
    Stored(i64),
    New(usize),
}

/// A lead to create, with every merge of later elements of the batch applied.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLead {
    pub team_id: Option<i64>,
    /// `AddressKey::street_key`, when the lead has an address key.
    pub street_key: Option<String>,
    /// `AddressKey::full_key`, the one-lead-per-property key; `None` without a locality (no ZIP,
    /// and not both city and state): such a lead matches nothing, so it claims no key either.
    pub address_key: Option<String>,
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    pub enrichment_status: EnrichmentStatus,
    pub submission_count: i32,
    pub created_by: i64,
    /// A lead of a team whose first submission names no owner: given in turn (`team::turns`)
    /// when the team has members who take new leads.
    pub in_turn: bool,
}

/// A stored lead after the batch's merges into it, to be written back once. Its street and
/// address keys never change: they name the property.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedLead {
    pub id: i64,
    pub fields: LeadFields,
    pub lot_size_acres: Option<f64>,
    pub enrichment_status: EnrichmentStatus,
    pub submission_count: i32,
}

/// What one element does.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementPlan {
    pub lead: PlannedLead,
    pub action: LeadAction,
    /// The merge's warnings (`contact_slots_full`).
    pub warnings: Vec<Warning>,
    /// Enrichment is to look at the lead now (`lead::plan::needs_enrichment`).
    pub to_enrich: bool,
    /// The lead ends the batch otherwise than it began it (a new lead: as the element that
    /// created it made it). False for a merge whose change later elements undid, as the two
    /// spellings of one address in one file do, though its action is `updated` (contract 3.3
    /// speaks of each element); an import counts such a row skipped.
    pub lead_changed: bool,
}

/// The whole batch's plan.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LeadPlan {
    /// One per element, in element order.
    pub elements: Vec<ElementPlan>,
    pub new_leads: Vec<NewLead>,
    /// Stored leads an element merged into or skipped against, in id order.
    pub merged: Vec<MergedLead>,
    /// Leads marked `pending_retry`: a retry job is queued for them with the write, so that a
    /// crash before enrichment runs cannot lose it. Each once, in order of first need.
    pub enrichment_retry: Vec<PlannedLead>,
}

/// The lead lacks coordinates or an appraisal, and has something to look them up by.
pub fn needs_enrichment(fields: &LeadFields, has_appraisal: bool) -> bool {
    (fields.latitude.is_none() && fields.address.is_some())
        || (!has_appraisal && (fields.parcel_number.is_some() || fields.latitude.is_some()))
}

/// Plans `writes` in order against `candidates` (the stored leads of their `streets`). A lead
/// created by an element is a candidate for the elements after it.
pub fn plan<'a>(
    writes: impl IntoIterator<Item = &'a LeadWrite>,
    mut candidates: Vec<Candidate>,
) -> LeadPlan {
    candidates.sort_by_key(|c| c.id);
    let mut planner = Planner::default();
    for c in candidates {
        let slot = Slot::Stored(planner.stored.len());
        planner
            .by_street
            .entry(c.street.clone())
            .or_default()
            .push(slot);
        let planned = Planned {
            key: c.fields.address_key(),
            began: None,
            lead: Draft {
                fields: c.fields,
                lot_size_acres: c.lot_size_acres,
                has_appraisal: c.has_appraisal,
                enrichment_status: c.enrichment_status,
                submission_count: c.submission_count,
                barred: c.barred,
            },
        };
        planner.stored.push((c.id, planned));
    }
    for w in writes {
        planner.element(w);
    }
    planner.finish()
}

/// A lead's values as the plan changes them.
struct Draft {
    fields: LeadFields,
    lot_size_acres: Option<f64>,
    has_appraisal: bool,
    enrichment_status: EnrichmentStatus,
    submission_count: i32,
    barred: BarredNumbers,
}

/// A lead of the plan with its address key, read from its current fields.
struct Planned {
    lead: Draft,
    key: Option<AddressKey>,
    /// Its fields before the batch's first merge into it (a new lead: as created), to tell
    /// whether the batch's merges, all told, changed it; kept only for a lead merged into, so
    /// the stored leads of the batch's streets that no element touches are not copied.
    began: Option<LeadFields>,
}

/// What a new lead is created with besides its values.
struct NewKeys {
    team_id: Option<i64>,
    street_key: Option<String>,
    address_key: Option<String>,
    created_by: i64,
    in_turn: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Slot {
    Stored(usize),
    New(usize),
}

#[derive(Default)]
struct Planner {
    stored: Vec<(i64, Planned)>,
    created: Vec<(NewKeys, Planned)>,
    /// Stored leads some element merged into or skipped against.
    touched: BTreeSet<usize>,
    /// Leads by street: stored ones first (by id), then new ones in element order.
    by_street: HashMap<Street, Vec<Slot>>,
    elements: Vec<ElementPlan>,
    retry: Vec<Slot>,
}

impl Planner {
    fn get(&self, slot: Slot) -> &Planned {
        match slot {
            Slot::Stored(i) => &self.stored[i].1,
            Slot::New(i) => &self.created[i].1,
        }
    }

    fn get_mut(&mut self, slot: Slot) -> &mut Planned {
        match slot {
            Slot::Stored(i) => &mut self.stored[i].1,
            Slot::New(i) => &mut self.created[i].1,
        }
    }

    fn planned_lead(&self, slot: Slot) -> PlannedLead {
        match slot {
            Slot::Stored(i) => PlannedLead::Stored(self.stored[i].0),
            Slot::New(i) => PlannedLead::New(i),
        }
    }

    /// The first lead of the street, stored or new, that is the same property.
    fn same_property(&self, street: &Street, key: &AddressKey) -> Option<Slot> {
        self.by_street.get(street)?.iter().copied().find(|slot| {
            self.get(*slot)
                .key
                .as_ref()
                .is_some_and(|k| key.same_property(k))
        })
    }

    fn element(&mut self, w: &LeadWrite) {
        let street = Street::of(w);
        let found = street
            .as_ref()
            .zip(w.lead.address_key.as_ref())
            .and_then(|(street, key)| self.same_property(street, key));
        let element = match found {
            Some(slot) => self.merge(slot, w),
            None => self.create(w, street),
        };
        self.elements.push(element);
    }

    fn create(&mut self, w: &LeadWrite, street: Option<Street>) -> ElementPlan {
        let enrich = needs_enrichment(&w.lead.fields, false);
        let slot = Slot::New(self.created.len());
        let street_key = street.as_ref().map(|s| s.key.clone());
        let address_key = w
            .lead
            .address_key
            .as_ref()
            .zip(street_key.as_deref())
            .filter(|(k, _)| !k.locality_key().is_empty())
            .map(|(k, street)| k.full_key_from(street));
        let keys = NewKeys {
            team_id: w.team_id,
            street_key,
            address_key,
            created_by: w.user_id,
            in_turn: w.team_id.is_some() && !w.owner_chosen,
        };
        let planned = Planned {
            lead: Draft {
                fields: w.lead.fields.clone(),
                lot_size_acres: w.lead.lot_size_acres,
                has_appraisal: false,
                enrichment_status: EnrichmentStatus::Skipped,
                submission_count: 1,
                barred: BarredNumbers::default(),
            },
            key: w.lead.address_key.clone(),
            began: None,
        };
        self.created.push((keys, planned));
        if let Some(street) = street {
            self.by_street.entry(street).or_default().push(slot);
        }
        self.mark_for_retry(slot, enrich && w.enrich_later);
        ElementPlan {
            lead: self.planned_lead(slot),
            action: LeadAction::Created,
            warnings: Vec::new(),
            to_enrich: enrich,
            lead_changed: true,
        }
    }

    /// Merges the element into the lead in `slot`; later elements see the result.
    fn merge(&mut self, slot: Slot, w: &LeadWrite) -> ElementPlan {
        if let Slot::Stored(i) = slot {
            self.touched.insert(i);
        }
        let planned = self.get_mut(slot);
        if planned.began.is_none() {
            planned.began = Some(planned.lead.fields.clone());
        }
        let outcome = merge_into(
            &mut planned.lead.fields,
            &w.lead.fields,
            &planned.lead.barred,
        );
        if outcome.changed {
            let fields = &planned.lead.fields;
            planned.lead.lot_size_acres = fields.lot_size.as_deref().and_then(parse_lot_size_acres);
            planned.key = fields.address_key();
        }
        planned.lead.submission_count += 1;
        let enrich =
            outcome.changed && needs_enrichment(&planned.lead.fields, planned.lead.has_appraisal);
        self.mark_for_retry(slot, enrich && w.enrich_later);
        ElementPlan {
            lead: self.planned_lead(slot),
            action: if outcome.changed {
                LeadAction::Updated
            } else {
                LeadAction::Skipped
            },
            warnings: outcome.warnings,
            to_enrich: enrich,
            // Told once every element is planned (`finish`).
            lead_changed: outcome.changed,
        }
    }

    /// Marks the lead `pending_retry` and queues its retry, when enrichment will look at it.
    fn mark_for_retry(&mut self, slot: Slot, retry: bool) {
        if retry {
            self.get_mut(slot).lead.enrichment_status = EnrichmentStatus::PendingRetry;
            if !self.retry.contains(&slot) {
                self.retry.push(slot);
            }
        }
    }

    fn finish(mut self) -> LeadPlan {
        // A merge's change counts only when its lead ends the batch changed.
        let stored_at: HashMap<i64, usize> = self
            .stored
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
        for element in &mut self.elements {
            if element.action != LeadAction::Updated {
                continue;
            }
            let planned = match element.lead {
                PlannedLead::Stored(id) => stored_at.get(&id).map(|&i| &self.stored[i].1),
                PlannedLead::New(i) => self.created.get(i).map(|(_, p)| p),
            };
            element.lead_changed =
                planned.is_some_and(|p| p.began.as_ref() != Some(&p.lead.fields));
        }
        let enrichment_retry = self.retry.iter().map(|s| self.planned_lead(*s)).collect();
        let merged = self
            .touched
            .iter()
            .map(|&i| {
                let (id, p) = &self.stored[i];
                MergedLead {
                    id: *id,
                    fields: p.lead.fields.clone(),
                    lot_size_acres: p.lead.lot_size_acres,
                    enrichment_status: p.lead.enrichment_status,
                    submission_count: p.lead.submission_count,
                }
            })
            .collect();
        let new_leads = self
            .created
            .into_iter()
            .map(|(keys, p)| NewLead {
                team_id: keys.team_id,
                street_key: keys.street_key,
                address_key: keys.address_key,
                fields: p.lead.fields,
                lot_size_acres: p.lead.lot_size_acres,
                enrichment_status: p.lead.enrichment_status,
                submission_count: p.lead.submission_count,
                created_by: keys.created_by,
                in_turn: keys.in_turn,
            })
            .collect();
        LeadPlan {
            elements: self.elements,
            new_leads,
            merged,
            enrichment_retry,
        }
    }
}

/// A lead's address key, from its current fields.
#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
