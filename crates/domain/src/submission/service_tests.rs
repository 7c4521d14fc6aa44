//! `SubmissionService` with every port mocked: the pipeline's stage order, what enrichment's
//! failure leads to, the merge decisions each element gets, and what a failing store
//! leaves (every submission kept, only the element at fault failed).
//!
//! The store applies the same-property plan inside its transaction; the mocked store here
//! returns as the real one does, with `lead::plan` over the candidates a test puts in it.
#![allow(clippy::unwrap_used)]
use std::sync::{Arc, Mutex};

use mockall::Sequence;

use crate::enrich::{EnrichError, GeocodeQuery, MockGeocoder};
use crate::fixtures::census_match;
use crate::lead::barred::BarredNumbers;
use crate::lead::enrichment_retry::MockEnrichmentRetryRepository;
use crate::lead::fields::{LeadFields, Warning};
use crate::lead::plan::{self, Candidate, PlannedLead, Street};
use crate::lead::record::{
    EnrichmentStatus, EnrichmentUpdate, Lead, LeadAction, LeadWrite, LeadWritten,
    MockLeadRepository,
};
use crate::store::StoreError;
use crate::submission::record::{
    MockSubmissionRepository, NewSubmission, StoredAndWritten, SubmissionOutcome, SubmissionStatus,
};
use crate::submission::{
    BatchOutcome, ElementOutcome, Enricher, PendingWork, SubmissionError, SubmissionRequest,
    SubmissionService,
};
use crate::test_support::{
    ada, clock, fresh_lead, now, numbered_token_generator, roster_memberships,
};
use crate::user::MockUserRepository;

/// Submission ids the mocked store hands out start here; new leads' ids at `NEW_LEADS`.
const SUBMISSIONS: i64 = 100;
const NEW_LEADS: i64 = 1000;

struct Setup {
    leads: MockLeadRepository,
    submissions: MockSubmissionRepository,
    users: MockUserRepository,
    retries: MockEnrichmentRetryRepository,
    geocoder: Option<MockGeocoder>,
}

impl Setup {
    fn new() -> Setup {
        Setup {
            leads: MockLeadRepository::new(),
            submissions: MockSubmissionRepository::new(),
            users: MockUserRepository::new(),
            retries: MockEnrichmentRetryRepository::new(),
            geocoder: None,
        }
    }

    /// No submission is stored, now or deferred.
    fn storing_nothing(mut self) -> Setup {
        self.submissions.expect_store_fresh_and_plan_leads().never();
        self.submissions.expect_insert_submissions().never();
        self
    }

    /// Ada belongs to team 1.
    fn build(self) -> SubmissionService {
        let memberships = roster_memberships(vec![(1, ada().id, crate::team::Role::Member, true)]);
        SubmissionService {
            leads: Arc::new(self.leads),
            submissions: Arc::new(self.submissions),
            memberships: Arc::new(memberships),
            users: Arc::new(self.users),
            enricher: Enricher {
                geocoder: self.geocoder.map(|g| Arc::new(g) as _),
                appraisal: None,
            },
            retries: Arc::new(self.retries),
            clock: clock(),
            tokens: numbered_token_generator(),
        }
    }
}

fn request(fields: LeadFields) -> SubmissionRequest {
    SubmissionRequest {
        raw_json: format!(
            "{{\"address\": {:?}}}",
            fields.address.as_deref().unwrap_or("")
        ),
        fields,
        team_id: None,
        idempotency_key_id: None,
        owner_chosen: false,
    }
}

/// A lead in Austin with coordinates given (nothing to geocode).
fn located(address: &str) -> LeadFields {
    LeadFields {
        latitude: Some(30.26),
        longitude: Some(-97.74),
        ..unlocated(address)
    }
}

/// A lead in Austin with no coordinates: the geocoder is asked.
fn unlocated(address: &str) -> LeadFields {
    LeadFields {
        address: Some(address.into()),
        city: Some("Austin".into()),
        state: Some("tx".into()),
        zip_code: Some("78701".into()),
        ..LeadFields::default()
    }
}

/// A stored lead the store finds on the street of `fields`.
fn stored(id: i64, fields: LeadFields) -> Candidate {
    let lead = crate::lead::normalize(&fields, 2026);
    let write = LeadWrite {
        team_id: None,
        user_id: ada().id,
        lead,
        submission_id: None,
        enrich_later: false,
        owner_chosen: false,
    };
    Candidate {
        id,
        street: Street::of(&write).unwrap(),
        fields: write.lead.fields,
        lot_size_acres: None,
        has_appraisal: false,
        enrichment_status: EnrichmentStatus::Skipped,
        submission_count: 1,
        barred: BarredNumbers::default(),
    }
}

/// What the store returns for `writes`, as the real one does: the domain's plan against
/// `candidates`; ids from `SUBMISSIONS` and `NEW_LEADS`.
fn store_answer(writes: &[LeadWrite], candidates: Vec<Candidate>) -> StoredAndWritten {
    let plan = plan::plan(writes, candidates);
    let leads = plan
        .elements
        .into_iter()
        .map(|e| LeadWritten {
            lead_id: lead_id(e.lead),
            action: e.action,
            warnings: e.warnings,
            to_enrich: e.to_enrich,
            restored: false,
            lead_changed: e.lead_changed,
        })
        .collect();
    StoredAndWritten {
        ids: (SUBMISSIONS..).take(writes.len()).collect(),
        leads: Ok(leads),
    }
}

fn lead_id(lead: PlannedLead) -> i64 {
    match lead {
        PlannedLead::Stored(id) => id,
        PlannedLead::New(i) => NEW_LEADS + i64::try_from(i).unwrap(),
    }
}

/// The lead a write created, as the store would read it back.
fn lead_of(id: i64, w: &LeadWrite) -> Lead {
    fresh_lead(id, w.team_id, w.lead.fields.clone(), w.lead.lot_size_acres)
}

fn codes(warnings: &[Warning]) -> Vec<&str> {
    warnings.iter().map(|w| w.code.as_str()).collect()
}

fn summary(e: &ElementOutcome) -> (usize, SubmissionStatus, Option<LeadAction>, Option<i64>) {
    (e.index, e.status, e.action, e.lead_id)
}

/// Ada submits `requests` as a batch to process now, for no team and with no idempotency key.
async fn submit_now(
    service: &SubmissionService,
    requests: Vec<SubmissionRequest>,
) -> Result<BatchOutcome, SubmissionError> {
    service
        .submit_batch(&ada(), requests, None, true, None)
        .await
}

async fn submit(service: &SubmissionService, leads: Vec<LeadFields>) -> Vec<ElementOutcome> {
    let requests = leads.into_iter().map(request).collect();
    submit_now(service, requests).await.unwrap().elements
}

// ---- The pipeline ----

#[tokio::test]
async fn stages_run_in_order_normalise_store_enrich_record() {
    let mut s = Setup::new();
    let mut order = Sequence::new();
    let written: Arc<Mutex<Vec<LeadWrite>>> = Arc::default();
    let kept = written.clone();
    s.submissions
        .expect_store_fresh_and_plan_leads()
        .withf(|batch, submissions: &Vec<NewSubmission>, writes| {
            let w = &writes[0];
            // Stored verbatim, and normalised before the store sees the lead.
            batch.as_ref().is_some_and(|b| b.total == 1)
                && submissions[0].raw_json == "{\"address\": \"100 Congress Ave\"}"
                && submissions[0].status == SubmissionStatus::Processing
                && w.lead.fields.state.as_deref() == Some("TX")
                && w.lead.fields.primary_phone.as_deref() == Some("+15125550100")
                && w.enrich_later
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(move |_, _, writes| {
            kept.lock().unwrap().extend(writes.iter().cloned());
            Ok(store_answer(&writes, Vec::new()))
        });
    s.leads
        .expect_find_leads()
        .withf(|ids| ids == &[NEW_LEADS])
        .times(1)
        .in_sequence(&mut order)
        .returning(move |ids| Ok(vec![lead_of(ids[0], &written.lock().unwrap()[0])]));
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .withf(|queries: &[GeocodeQuery]| queries.len() == 1)
        .times(1)
        .in_sequence(&mut order)
        .returning(|_| vec![Ok(None)]);
    s.geocoder = Some(geocoder);
    s.leads
        .expect_save_enrichment()
        .withf(|updates: &Vec<EnrichmentUpdate>, actor, _| {
            updates.len() == 1 && updates[0].status == EnrichmentStatus::Partial && actor.is_none()
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(|_, _, _| Ok(()));
    s.submissions
        .expect_finish_submissions()
        .withf(|outcomes: &Vec<SubmissionOutcome>| {
            outcomes.len() == 1 && codes(&outcomes[0].warnings) == ["geocode_no_match"]
        })
        .times(1)
        .in_sequence(&mut order)
        .returning(|_| Ok(()));
    let service = s.build();
    let mut lead = unlocated("100 Congress Ave");
    lead.primary_phone = Some("(512) 555-0100".into());
    let [outcome] = submit(&service, vec![lead]).await.try_into().unwrap();
    assert_eq!(
        summary(&outcome),
        (
            0,
            SubmissionStatus::Completed,
            Some(LeadAction::Created),
            Some(NEW_LEADS)
        )
    );
    assert_eq!(outcome.submission_id, SUBMISSIONS);
    assert_eq!(codes(&outcome.warnings), ["geocode_no_match"]);
}

#[tokio::test]
async fn a_geocoder_failure_leaves_the_lead_pending_retry_with_its_retry_queued() {
    let mut s = Setup::new();
    let written: Arc<Mutex<Vec<LeadWrite>>> = Arc::default();
    let kept = written.clone();
    s.submissions
        .expect_store_fresh_and_plan_leads()
        .times(1)
        .returning(move |_, _, writes| {
            // The store queues the plan's retry with the write: here, for the new lead.
            let planned = plan::plan(writes.iter(), Vec::new());
            assert_eq!(planned.enrichment_retry, [PlannedLead::New(0)]);
            assert_eq!(
                planned.new_leads[0].enrichment_status,
                EnrichmentStatus::PendingRetry
            );
            kept.lock().unwrap().extend(writes.iter().cloned());
            Ok(store_answer(&writes, Vec::new()))
        });
    // What enrichment saved, which the store then reads back.
    let saved: Arc<Mutex<Vec<EnrichmentStatus>>> = Arc::default();
    let (reread, last_saved) = (written.clone(), saved.clone());
    s.leads.expect_find_leads().returning(move |ids| {
        let mut lead = lead_of(ids[0], &reread.lock().unwrap()[0]);
        if let Some(status) = last_saved.lock().unwrap().last() {
            lead.enrichment_status = *status;
        }
        Ok(vec![lead])
    });
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .times(1)
        .returning(|_| vec![Err(EnrichError::failed("census", "could not be reached"))]);
    geocoder
        .expect_geocode_batch()
        .times(1)
        .returning(|_| vec![Ok(Some(census_match()))]);
    s.geocoder = Some(geocoder);
    let statuses = saved.clone();
    s.leads
        .expect_save_enrichment()
        .returning(move |updates, _, _| {
            statuses.lock().unwrap().push(updates[0].status);
            Ok(())
        });
    s.submissions
        .expect_finish_submissions()
        .withf(|outcomes: &Vec<SubmissionOutcome>| {
            codes(&outcomes[0].warnings) == ["geocode_failed"]
        })
        .times(1)
        .returning(|_| Ok(()));
    let service = s.build();
    let [outcome] = submit(&service, vec![unlocated("100 Congress Ave")])
        .await
        .try_into()
        .unwrap();
    assert_eq!(outcome.status, SubmissionStatus::Completed);
    assert_eq!(codes(&outcome.warnings), ["geocode_failed"]);
    assert_eq!(*saved.lock().unwrap(), [EnrichmentStatus::PendingRetry]);
    // The queued retry (the `enrich_lead` job) enriches it again; none is left waiting.
    assert_eq!(
        service.retry_enrichment(vec![NEW_LEADS]).await,
        crate::lead::enrichment_retry::EnrichmentRound::default()
    );
    assert_eq!(
        *saved.lock().unwrap(),
        [EnrichmentStatus::PendingRetry, EnrichmentStatus::Complete]
    );
}

// ---- Merge decisions ----

#[tokio::test]
async fn each_element_is_answered_its_merge_decision_in_order() {
    let mut s = Setup::new();
    let mut full = located("1 Main St");
    full.email_1 = Some("a@example.com".into());
    full.email_2 = Some("b@example.com".into());
    full.email_3 = Some("c@example.com".into());
    let candidates = vec![stored(40, full)];
    s.submissions
        .expect_store_fresh_and_plan_leads()
        .times(1)
        .returning(move |_, _, writes| Ok(store_answer(&writes, candidates.clone())));
    let service = s.build();
    let mut named = located("1 Main Street");
    named.first_name = Some("Ada".into());
    let mut extra_email = located("1 Main Street");
    extra_email.email_1 = Some("d@example.com".into());
    let mut bad_phone = located("2 Oak Ave");
    bad_phone.primary_phone = Some("12".into());
    // The invalid phone is dropped; the name is what changes the lead.
    bad_phone.first_name = Some("Bo".into());
    let outcomes = submit(
        &service,
        vec![
            named,
            located("2 Oak Ave"),
            extra_email,
            bad_phone,
            located("2 Oak Avenue"),
        ],
    )
    .await;
    let summaries: Vec<_> = outcomes.iter().map(summary).collect();
    use LeadAction::{Created, Skipped, Updated};
    use SubmissionStatus::{Completed, Duplicate};
    assert_eq!(
        summaries,
        [
            (0, Completed, Some(Updated), Some(40)),
            (1, Completed, Some(Created), Some(NEW_LEADS)),
            (2, Duplicate, Some(Skipped), Some(40)),
            (3, Completed, Some(Updated), Some(NEW_LEADS)),
            (4, Completed, Some(Updated), Some(NEW_LEADS)),
        ]
    );
    // Normalisation's warnings, then the merge's.
    assert_eq!(codes(&outcomes[2].warnings), ["contact_slots_full"]);
    assert_eq!(codes(&outcomes[3].warnings), ["invalid_phone"]);
    let ids: Vec<i64> = outcomes.iter().map(|o| o.submission_id).collect();
    assert_eq!(ids, [100, 101, 102, 103, 104]);
}

#[tokio::test]
async fn a_team_the_submitter_may_not_use_stores_nothing() {
    let service = Setup::new().storing_nothing().build();
    let mut elsewhere = request(located("1 Main St"));
    elsewhere.team_id = Some(2);
    let refused = submit_now(&service, vec![request(located("2 Main St")), elsewhere]).await;
    assert!(matches!(refused, Err(SubmissionError::Forbidden(_))));
}

#[tokio::test]
async fn a_deferred_batch_is_stored_with_its_fields_and_answered_pending() {
    let mut s = Setup::new();
    s.submissions.expect_store_fresh_and_plan_leads().never();
    s.submissions
        .expect_insert_submissions()
        .withf(|batch, new: &Vec<NewSubmission>| {
            batch.as_ref().is_some_and(|b| !b.process_immediately)
                && new.iter().all(|n| {
                    n.status == SubmissionStatus::Pending
                        && n.deferred.as_ref().and_then(|f| f.address.as_deref())
                            == Some("1 Main St")
                })
        })
        .times(1)
        .returning(|_, _| Ok(vec![7]));
    let service = s.build();
    let batch = service
        .submit_batch(
            &ada(),
            vec![request(located("1 Main St"))],
            None,
            false,
            None,
        )
        .await
        .unwrap();
    assert_eq!(batch.batch_id, "bat_id-1");
    assert_eq!(
        summary(&batch.elements[0]),
        (0, SubmissionStatus::Pending, None, None)
    );
}

// ---- A failing store ----

#[tokio::test]
async fn a_failed_lead_write_keeps_every_submission_and_fails_only_its_own() {
    let mut s = Setup::new();
    s.submissions
        .expect_store_fresh_and_plan_leads()
        .times(1)
        .returning(|_, submissions, _| {
            // Stored open, verbatim; the leads' write was rolled back.
            Ok(StoredAndWritten {
                ids: (SUBMISSIONS..).take(submissions.len()).collect(),
                leads: Err(StoreError::Unexpected(anyhow::anyhow!("trigger refused"))),
            })
        });
    // Then one at a time, each as the stored submission it now is.
    for (n, id) in (SUBMISSIONS..SUBMISSIONS + 3).enumerate() {
        s.leads
            .expect_write_leads()
            .withf(move |writes| writes.len() == 1 && writes[0].submission_id == Some(id))
            .times(1)
            .returning(move |_| {
                if n == 1 {
                    Err(StoreError::Unexpected(anyhow::anyhow!("trigger refused")))
                } else {
                    Ok(vec![Some(LeadWritten {
                        lead_id: NEW_LEADS + n as i64,
                        action: LeadAction::Created,
                        warnings: Vec::new(),
                        to_enrich: false,
                        restored: false,
                        lead_changed: true,
                    })])
                }
            });
    }
    s.submissions
        .expect_finish_submissions()
        .withf(|outcomes: &Vec<SubmissionOutcome>| {
            outcomes.len() == 1
                && outcomes[0].id == SUBMISSIONS + 1
                && outcomes[0].status == SubmissionStatus::Failed
                && outcomes[0].error.is_some()
        })
        .times(1)
        .returning(|_| Ok(()));
    let service = s.build();
    let outcomes = submit(
        &service,
        vec![
            located("1 Main St"),
            located("2 Main St"),
            located("3 Main St"),
        ],
    )
    .await;
    let statuses: Vec<_> = outcomes
        .iter()
        .map(|o| (o.submission_id, o.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (100, SubmissionStatus::Completed),
            (101, SubmissionStatus::Failed),
            (102, SubmissionStatus::Completed)
        ]
    );
    assert_eq!(
        outcomes[1].error.as_deref(),
        Some("The lead could not be stored; the submission is kept verbatim")
    );
}

#[tokio::test]
async fn a_store_that_cannot_store_answers_an_error_and_writes_nothing() {
    let mut s = Setup::new();
    s.submissions
        .expect_store_fresh_and_plan_leads()
        .times(1)
        .returning(|_, _, _| Err(StoreError::Unexpected(anyhow::anyhow!("disk full"))));
    s.leads.expect_write_leads().never();
    s.submissions.expect_finish_submissions().never();
    let service = s.build();
    let failed = submit_now(&service, vec![request(located("1 Main St"))]).await;
    assert!(matches!(failed, Err(SubmissionError::Unexpected(_))));
}

#[tokio::test]
async fn a_deferred_job_whose_write_fails_is_retried_one_at_a_time() {
    let mut s = Setup::new();
    s.leads
        .expect_write_leads()
        .withf(|writes| writes.len() == 2)
        .times(1)
        .returning(|_| Err(StoreError::Unexpected(anyhow::anyhow!("deadlock"))));
    s.leads
        .expect_write_leads()
        .withf(|writes| writes.len() == 1)
        .times(2)
        .returning(|writes| {
            // A job run twice: the first submission was final already.
            Ok(vec![(writes[0].submission_id != Some(1)).then(|| {
                LeadWritten {
                    lead_id: 9,
                    action: LeadAction::Created,
                    warnings: Vec::new(),
                    to_enrich: false,
                    restored: false,
                    lead_changed: true,
                }
            })])
        });
    let service = s.build();
    let work = PendingWork(vec![
        (1, ada().id, None, located("1 Main St")),
        (2, ada().id, None, located("2 Main St")),
    ]);
    let outcomes = service.process_pending(work).await.unwrap();
    let summaries: Vec<_> = outcomes
        .iter()
        .map(|o| (o.submission_id, o.status))
        .collect();
    assert_eq!(summaries, [(2, SubmissionStatus::Completed)]);
}

// ---- Enrich again ----

/// "Enrich again" on a lead whose geocoder answers `answer`: the lead, read back, has the
/// status enrichment saved for it.
fn enriching_again(answer: fn() -> crate::enrich::GeocodeOutcome) -> Setup {
    let mut s = Setup::new();
    let saved: Arc<Mutex<Option<EnrichmentStatus>>> = Arc::default();
    let reread = saved.clone();
    s.leads.expect_find_lead().returning(move |id| {
        let mut lead = fresh_lead(id, None, unlocated("100 Congress Ave"), None);
        lead.enrichment_status = reread.lock().unwrap().unwrap_or(EnrichmentStatus::GaveUp);
        Ok(Some(lead))
    });
    s.leads
        .expect_save_enrichment()
        .returning(move |updates, _, _| {
            *saved.lock().unwrap() = Some(updates[0].status);
            Ok(())
        });
    let mut geocoder = MockGeocoder::new();
    geocoder
        .expect_geocode_batch()
        .returning(move |_| vec![answer()]);
    s.geocoder = Some(geocoder);
    s
}

#[tokio::test]
async fn enrich_again_queues_a_retry_only_for_a_lead_that_still_waits() {
    // Still waiting: the service itself asks for the lead's retry job, whoever called it.
    let mut s = enriching_again(|| Err(EnrichError::failed("census", "could not be reached")));
    s.retries
        .expect_queue_retry_unless_queued()
        .withf(|lead_id, job| {
            *lead_id == 7 && *job == crate::jobs::NewJob::enrichment_retry([7], now())
        })
        .times(2)
        .returning(|_, _| Ok(false));
    let service = s.build();
    let lead = service.enrich_now(&ada(), 7).await.unwrap();
    assert_eq!(lead.enrichment_status, EnrichmentStatus::PendingRetry);
    let lead = service.enrich_lead_again(7).await.unwrap();
    assert_eq!(lead.enrichment_status, EnrichmentStatus::PendingRetry);

    // Enriched: no retry.
    let mut s = enriching_again(|| Ok(Some(census_match())));
    s.retries.expect_queue_retry_unless_queued().never();
    let service = s.build();
    let lead = service.enrich_now(&ada(), 7).await.unwrap();
    assert_ne!(lead.enrichment_status, EnrichmentStatus::PendingRetry);
    let lead = service.enrich_lead_again(7).await.unwrap();
    assert_ne!(lead.enrichment_status, EnrichmentStatus::PendingRetry);
}

#[tokio::test]
async fn a_retry_round_the_database_fails_leaves_every_lead_waiting() {
    for fails_on_save in [false, true] {
        let mut s = Setup::new();
        let failure = || StoreError::Unexpected(anyhow::anyhow!("disk I/O error"));
        if fails_on_save {
            s.leads.expect_find_leads().returning(|ids| {
                Ok(ids
                    .into_iter()
                    .map(|id| fresh_lead(id, None, unlocated("100 Congress Ave"), None))
                    .collect())
            });
            s.leads
                .expect_save_enrichment()
                .times(1)
                .returning(move |_, _, _| Err(failure()));
            let mut geocoder = MockGeocoder::new();
            geocoder
                .expect_geocode_batch()
                .returning(|queries| queries.iter().map(|_| Ok(None)).collect());
            s.geocoder = Some(geocoder);
        } else {
            s.leads
                .expect_find_leads()
                .returning(move |_| Err(failure()));
        }
        let round = s.build().retry_enrichment(vec![7, 8]).await;
        // As in an outage: the job is retried on the enrichment schedule, then gives them up.
        assert_eq!(
            round,
            crate::lead::enrichment_retry::EnrichmentRound {
                still_waiting: vec![7, 8],
                reason: Some(crate::lead::enrichment_retry::DATABASE_FAILED.to_owned()),
                paused_for: None,
            },
            "fails on save: {fails_on_save}"
        );
    }
}
