-- Box addresses' keys back to "<number> <street>": "55 PO BOX", "15 RR 2 BOX".
UPDATE leads
SET street_key = substr(street_key, instr(street_key, ' BOX ') + 5) || ' '
        || substr(street_key, 1, instr(street_key, ' BOX ') + 3),
    address_key = CASE
        WHEN substr(address_key, 1, length(street_key) + 1) = street_key || '|'
        THEN substr(street_key, instr(street_key, ' BOX ') + 5) || ' '
            || substr(street_key, 1, instr(street_key, ' BOX ') + 3)
            || substr(address_key, length(street_key) + 1)
        ELSE address_key
    END
WHERE street_key LIKE 'PO BOX %' OR street_key LIKE 'RR % BOX %' OR street_key LIKE 'HC % BOX %';

DELETE FROM geocode_cache
WHERE address_key LIKE 'PO BOX %|%' OR address_key LIKE 'RR % BOX %|%'
    OR address_key LIKE 'HC % BOX %|%';
