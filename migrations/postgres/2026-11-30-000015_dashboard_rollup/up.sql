-- The dashboard's lead counts, kept in step with every write to leads by the triggers below (so
-- every writer keeps them right without knowing of them): one row per team scope (team_id, or 0
-- for unassigned leads), UTC creation day, source ('' for none), enrichment status and status,
-- counting the live leads (not archived, not merged away). Rows that fall to 0 stay; readers
-- add them up, so a 0 changes nothing. Read by db lead/dashboard.rs; a test compares it with a
-- full recount.
CREATE TABLE lead_daily_counts (
    team_scope BIGINT NOT NULL,
    day TEXT NOT NULL,
    source TEXT NOT NULL,
    enrichment_status TEXT NOT NULL,
    status TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (team_scope, day, source, enrichment_status, status)
);

INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, n)
SELECT COALESCE(team_id, 0), to_char(created_at, 'YYYY-MM-DD'), COALESCE(source, ''),
       enrichment_status, status, count(*)
FROM leads
WHERE archived_at IS NULL AND merged_into_id IS NULL
GROUP BY 1, 2, 3, 4, 5;

-- Statement triggers with transition tables: a batch of 1,000 leads adds its counts in one
-- statement, not 1,000. The rows are changed in key order, the same in every transaction, so
-- two concurrent writers never wait on each other's count rows in opposite orders.
CREATE FUNCTION lead_daily_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, n)
        SELECT COALESCE(team_id, 0), to_char(created_at, 'YYYY-MM-DD'), COALESCE(source, ''),
               enrichment_status, status, count(*)
        FROM new_leads
        WHERE archived_at IS NULL AND merged_into_id IS NULL
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSIF TG_OP = 'DELETE' THEN
        -- A deleted live lead's row of counts exists, so this always lands on the conflict.
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, n)
        SELECT COALESCE(team_id, 0), to_char(created_at, 'YYYY-MM-DD'), COALESCE(source, ''),
               enrichment_status, status, -count(*)
        FROM old_leads
        WHERE archived_at IS NULL AND merged_into_id IS NULL
        GROUP BY 1, 2, 3, 4, 5
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    ELSE
        -- Only the rows that move to another row of counts, or in or out of the live ones.
        INSERT INTO lead_daily_counts AS c (team_scope, day, source, enrichment_status, status, n)
        SELECT team_scope, day, source, enrichment_status, status, sum(delta)
        FROM (
            SELECT COALESCE(o.team_id, 0) AS team_scope, to_char(o.created_at, 'YYYY-MM-DD') AS day,
                   COALESCE(o.source, '') AS source, o.enrichment_status, o.status,
                   CASE WHEN o.archived_at IS NULL AND o.merged_into_id IS NULL THEN -1 ELSE 0 END AS delta
            FROM old_leads o JOIN new_leads n ON n.id = o.id
            WHERE (o.team_id, o.created_at::date, o.source, o.enrichment_status, o.status,
                   o.archived_at IS NULL, o.merged_into_id IS NULL)
                IS DISTINCT FROM
                  (n.team_id, n.created_at::date, n.source, n.enrichment_status, n.status,
                   n.archived_at IS NULL, n.merged_into_id IS NULL)
            UNION ALL
            SELECT COALESCE(n.team_id, 0), to_char(n.created_at, 'YYYY-MM-DD'),
                   COALESCE(n.source, ''), n.enrichment_status, n.status,
                   CASE WHEN n.archived_at IS NULL AND n.merged_into_id IS NULL THEN 1 ELSE 0 END
            FROM old_leads o JOIN new_leads n ON n.id = o.id
            WHERE (o.team_id, o.created_at::date, o.source, o.enrichment_status, o.status,
                   o.archived_at IS NULL, o.merged_into_id IS NULL)
                IS DISTINCT FROM
                  (n.team_id, n.created_at::date, n.source, n.enrichment_status, n.status,
                   n.archived_at IS NULL, n.merged_into_id IS NULL)
        ) AS moves
        GROUP BY 1, 2, 3, 4, 5
        HAVING sum(delta) <> 0
        ORDER BY 1, 2, 3, 4, 5
        ON CONFLICT (team_scope, day, source, enrichment_status, status)
        DO UPDATE SET n = c.n + EXCLUDED.n;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER lead_daily_counts_insert AFTER INSERT ON leads
    REFERENCING NEW TABLE AS new_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();
CREATE TRIGGER lead_daily_counts_update AFTER UPDATE ON leads
    REFERENCING OLD TABLE AS old_leads NEW TABLE AS new_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();
CREATE TRIGGER lead_daily_counts_delete AFTER DELETE ON leads
    REFERENCING OLD TABLE AS old_leads
    FOR EACH STATEMENT EXECUTE FUNCTION lead_daily_counts_apply();

-- The submission figures count the last 30 days: this index finds them by time and holds every
-- column they group and filter by, so the count reads the index alone.
CREATE INDEX submissions_created_outcome
    ON submissions(created_at, status, result_action, team_id, user_id);
