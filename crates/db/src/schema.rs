// The one schema both backends share; migrations/{sqlite,postgres} create it.
// Written by hand to match the migrations; tests/schema_parity checks both backends agree.

diesel::table! {
    users (id) {
        id -> BigInt,
        user_id -> Text,
        email -> Text,
        first_name -> Nullable<Text>,
        last_name -> Nullable<Text>,
        is_admin -> Bool,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        deactivated_at -> Nullable<Timestamp>,
        follow_up_digest -> Bool,
        utc_offset_minutes -> Nullable<Integer>,
    }
}

diesel::table! {
    follow_up_digest_hours (hour) {
        hour -> Timestamp,
        queued_at -> Timestamp,
    }
}

diesel::table! {
    follow_up_digests (user_id, day) {
        user_id -> BigInt,
        day -> Date,
        sent_at -> Timestamp,
    }
}

diesel::table! {
    api_keys (id) {
        id -> BigInt,
        user_id -> BigInt,
        name -> Text,
        prefix -> Text,
        key_hash -> Text,
        created_at -> Timestamp,
        last_used_at -> Nullable<Timestamp>,
        expires_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    saved_views (id) {
        id -> BigInt,
        user_id -> BigInt,
        name -> Text,
        query -> Text,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        team_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    auth_tokens (id) {
        id -> BigInt,
        user_id -> BigInt,
        kind -> Text,
        token_hash -> Text,
        family_id -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        retired_at -> Nullable<Timestamp>,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    sign_in_links (id) {
        id -> BigInt,
        user_id -> BigInt,
        token_hash -> Text,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    teams (id) {
        id -> BigInt,
        name -> Text,
        description -> Nullable<Text>,
        is_active -> Bool,
        created_by -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    team_members (id) {
        id -> BigInt,
        team_id -> BigInt,
        user_id -> BigInt,
        role -> Text,
        is_active -> Bool,
        joined_at -> Timestamp,
        takes_new_leads -> Bool,
        new_lead_turn -> Nullable<BigInt>,
    }
}

diesel::table! {
    team_invites (id) {
        id -> BigInt,
        team_id -> BigInt,
        email -> Text,
        role -> Text,
        token_hash -> Text,
        invited_by -> BigInt,
        created_at -> Timestamp,
        expires_at -> Timestamp,
        used_at -> Nullable<Timestamp>,
        used_by -> Nullable<BigInt>,
        revoked_at -> Nullable<Timestamp>,
    }
}

diesel::table! {
    leads (id) {
        id -> BigInt,
        team_id -> Nullable<BigInt>,
        dedupe_scope -> BigInt,
        street_key -> Nullable<Text>,
        address_key -> Nullable<Text>,
        address -> Nullable<Text>,
        city -> Nullable<Text>,
        state -> Nullable<Text>,
        zip_code -> Nullable<Text>,
        county -> Nullable<Text>,
        first_name -> Nullable<Text>,
        last_name -> Nullable<Text>,
        primary_phone -> Nullable<Text>,
        primary_phone_type -> Nullable<Text>,
        phone_2 -> Nullable<Text>,
        phone_3 -> Nullable<Text>,
        phone_4 -> Nullable<Text>,
        phone_5 -> Nullable<Text>,
        email_1 -> Nullable<Text>,
        email_2 -> Nullable<Text>,
        email_3 -> Nullable<Text>,
        mail_address -> Nullable<Text>,
        mail_city -> Nullable<Text>,
        mail_state -> Nullable<Text>,
        mail_zip -> Nullable<Text>,
        project_number -> Nullable<Text>,
        permit_date -> Nullable<Text>,
        permit_status -> Nullable<Text>,
        parcel_number -> Nullable<Text>,
        subdivision -> Nullable<Text>,
        lot -> Nullable<Text>,
        work_type -> Nullable<Text>,
        project_description -> Nullable<Text>,
        specific_use -> Nullable<Text>,
        property_type -> Nullable<Text>,
        lot_size -> Nullable<Text>,
        lot_size_acres -> Nullable<Double>,
        bedrooms -> Nullable<Integer>,
        related_url -> Nullable<Text>,
        latitude -> Nullable<Double>,
        longitude -> Nullable<Double>,
        source -> Nullable<Text>,
        source_identifier -> Nullable<Text>,
        geocode_source -> Nullable<Text>,
        geocode_match -> Nullable<Text>,
        geocode_matched_address -> Nullable<Text>,
        county_fips -> Nullable<Text>,
        appraisal -> Nullable<Text>,
        enrichment_status -> Text,
        submission_count -> Integer,
        created_by -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        status -> Text,
        assignee_id -> Nullable<BigInt>,
        version -> BigInt,
        archived_at -> Nullable<Timestamp>,
        merged_into_id -> Nullable<BigInt>,
        follow_up_on -> Nullable<Date>,
        last_contact_at -> Nullable<Timestamp>,
        do_not_call -> Bool,
        /// The lead's tags: a JSON array of strings, sorted (`lead_tags` indexes them).
        tags -> Text,
        /// Numbers a contact found to be wrong (migration 50): a JSON array of strings.
        wrong_phones -> Text,
        /// Numbers not to call (migration 52): a JSON array of strings.
        do_not_call_phones -> Text,
    }
}

diesel::table! {
    /// One row a tag of a lead, for the `tag=` filter (migration 46); written with `leads.tags`.
    lead_tags (tag, lead_id) {
        tag -> Text,
        lead_id -> BigInt,
    }
}

diesel::table! {
    /// The dashboard's live-lead counts, kept by triggers on `leads` (migration 15).
    lead_daily_counts (team_scope, day, source, enrichment_status, status, stripe) {
        team_scope -> BigInt,
        day -> Text,
        source -> Text,
        enrichment_status -> Text,
        status -> Text,
        n -> BigInt,
        stripe -> Integer,
    }
}

diesel::table! {
    lead_notes (id) {
        id -> BigInt,
        lead_id -> BigInt,
        author_id -> BigInt,
        body -> Text,
        created_at -> Timestamp,
        deleted_at -> Nullable<Timestamp>,
        deleted_by -> Nullable<BigInt>,
    }
}

diesel::table! {
    lead_activity (id) {
        id -> BigInt,
        lead_id -> BigInt,
        actor_id -> Nullable<BigInt>,
        kind -> Text,
        detail -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    batches (id) {
        id -> Text,
        user_id -> BigInt,
        team_id -> Nullable<BigInt>,
        total -> Integer,
        process_immediately -> Bool,
        created_at -> Timestamp,
        completed_at -> Nullable<Timestamp>,
        idempotency_key_id -> Nullable<BigInt>,
        upload_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    submissions (id) {
        id -> BigInt,
        batch_id -> Nullable<Text>,
        batch_index -> Nullable<Integer>,
        user_id -> BigInt,
        team_id -> Nullable<BigInt>,
        raw_json -> Text,
        status -> Text,
        result_lead_id -> Nullable<BigInt>,
        result_action -> Nullable<Text>,
        validation_warnings -> Text,
        error -> Nullable<Text>,
        created_at -> Timestamp,
        processed_at -> Nullable<Timestamp>,
        idempotency_key_id -> Nullable<BigInt>,
    }
}

diesel::table! {
    idempotency_keys (id) {
        id -> BigInt,
        user_id -> BigInt,
        idempotency_key -> Text,
        request_hash -> Text,
        response_status -> Integer,
        response_body -> Text,
        created_at -> Timestamp,
    }
}

diesel::table! {
    businesses (id) {
        id -> BigInt,
        team_id -> Nullable<BigInt>,
        dedupe_scope -> BigInt,
        name -> Text,
        name_key -> Text,
        phone -> Nullable<Text>,
        website -> Nullable<Text>,
        website_domain -> Nullable<Text>,
        address -> Nullable<Text>,
        city -> Nullable<Text>,
        state -> Nullable<Text>,
        zip_code -> Nullable<Text>,
        industry -> Nullable<Text>,
        rating -> Nullable<Double>,
        review_count -> Nullable<Integer>,
        relationship_type -> Text,
        status -> Text,
        created_by -> BigInt,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    jobs (id) {
        id -> BigInt,
        kind -> Text,
        payload -> Text,
        status -> Text,
        attempts -> Integer,
        max_attempts -> Integer,
        run_at -> Timestamp,
        locked_at -> Nullable<Timestamp>,
        locked_by -> Nullable<Text>,
        last_error -> Nullable<Text>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    geocode_cache (address_key) {
        address_key -> Text,
        source -> Text,
        found -> Bool,
        latitude -> Nullable<Double>,
        longitude -> Nullable<Double>,
        match_type -> Nullable<Text>,
        matched_address -> Nullable<Text>,
        county_fips -> Nullable<Text>,
        created_at -> Timestamp,
    }
}

diesel::table! {
    rate_limit_counters (bucket,window_start) {
        bucket -> Text,
        window_start -> BigInt,
        hits -> Integer,
    }
}

diesel::table! {
    uploads (id) {
        id -> BigInt,
        kind -> Text,
        team_id -> BigInt,
        user_id -> BigInt,
        file_name -> Text,
        options -> Text,
        content -> Binary,
        size -> BigInt,
        status -> Text,
        bytes_done -> BigInt,
        rows_read -> BigInt,
        created -> BigInt,
        updated -> BigInt,
        skipped -> BigInt,
        rejected -> BigInt,
        failed -> BigInt,
        error -> Nullable<Text>,
        report -> Nullable<Binary>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        warnings -> BigInt,
        summary -> Nullable<Text>,
    }
}

diesel::table! {
    webhook_endpoints (id) {
        id -> BigInt,
        team_id -> BigInt,
        url -> Text,
        events -> Text,
        description -> Nullable<Text>,
        is_active -> Bool,
        secret -> Text,
        previous_secret -> Nullable<Text>,
        previous_until -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
        created_by -> Nullable<BigInt>,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> BigInt,
        endpoint_id -> BigInt,
        event_id -> Text,
        event_type -> Text,
        subject -> Nullable<Text>,
        payload -> Nullable<Text>,
        occurred_at -> Timestamp,
        status -> Text,
        attempts -> Integer,
        next_attempt_at -> Nullable<Timestamp>,
        last_status -> Nullable<Integer>,
        last_error -> Nullable<Text>,
        delivered_at -> Nullable<Timestamp>,
        created_at -> Timestamp,
        updated_at -> Timestamp,
    }
}

diesel::table! {
    webhook_events (id) {
        id -> BigInt,
        events -> Text,
        occurred_at -> Timestamp,
    }
}

diesel::table! {
    lead_enrichment_retries (lead_id) {
        lead_id -> BigInt,
        next_try_at -> Nullable<Timestamp>,
        gave_up_at -> Nullable<Timestamp>,
        last_reason -> Nullable<Text>,
        updated_at -> Timestamp,
    }
}

diesel::joinable!(api_keys -> users (user_id));
diesel::joinable!(auth_tokens -> users (user_id));
diesel::joinable!(sign_in_links -> users (user_id));
diesel::joinable!(teams -> users (created_by));
diesel::joinable!(team_members -> teams (team_id));
diesel::joinable!(team_members -> users (user_id));
diesel::joinable!(team_invites -> teams (team_id));
diesel::joinable!(leads -> teams (team_id));
diesel::joinable!(leads -> users (created_by));
diesel::joinable!(batches -> users (user_id));
diesel::joinable!(batches -> teams (team_id));
diesel::joinable!(submissions -> users (user_id));
diesel::joinable!(submissions -> teams (team_id));
diesel::joinable!(submissions -> leads (result_lead_id));
diesel::joinable!(lead_notes -> leads (lead_id));
diesel::joinable!(lead_activity -> leads (lead_id));
diesel::joinable!(lead_tags -> leads (lead_id));
diesel::joinable!(idempotency_keys -> users (user_id));
diesel::joinable!(businesses -> teams (team_id));
diesel::joinable!(businesses -> users (created_by));
diesel::joinable!(webhook_endpoints -> teams (team_id));
diesel::joinable!(webhook_deliveries -> webhook_endpoints (endpoint_id));

diesel::joinable!(follow_up_digests -> users (user_id));
diesel::joinable!(saved_views -> users (user_id));
diesel::joinable!(saved_views -> teams (team_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    follow_up_digest_hours,
    follow_up_digests,
    saved_views,
    api_keys,
    auth_tokens,
    sign_in_links,
    teams,
    team_members,
    team_invites,
    leads,
    lead_notes,
    lead_activity,
    lead_tags,
    batches,
    submissions,
    idempotency_keys,
    businesses,
    jobs,
    geocode_cache,
    rate_limit_counters,
    uploads,
    webhook_endpoints,
    webhook_deliveries,
    webhook_events,
);
