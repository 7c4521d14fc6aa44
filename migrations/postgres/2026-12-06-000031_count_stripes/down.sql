-- Folds the stripes back into one row per key.
CREATE TABLE lead_daily_counts_folded AS
SELECT team_scope, day, source, enrichment_status, status, CAST(SUM(n) AS BIGINT) AS n
FROM lead_daily_counts GROUP BY 1, 2, 3, 4, 5;
DELETE FROM lead_daily_counts;
ALTER TABLE lead_daily_counts DROP CONSTRAINT lead_daily_counts_pkey;
ALTER TABLE lead_daily_counts DROP COLUMN stripe;
ALTER TABLE lead_daily_counts ADD PRIMARY KEY (team_scope, day, source, enrichment_status, status);
INSERT INTO lead_daily_counts (team_scope, day, source, enrichment_status, status, n)
SELECT team_scope, day, source, enrichment_status, status, n FROM lead_daily_counts_folded;
DROP TABLE lead_daily_counts_folded;

CREATE OR REPLACE FUNCTION lead_daily_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
