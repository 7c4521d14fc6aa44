-- Box addresses' keys back to "<number> <street>": "55 PO BOX", "15 RR 2 BOX".
UPDATE leads SET street_key = substr(street_key, strpos(street_key, ' BOX ') + 5) || ' '
    || substr(street_key, 1, strpos(street_key, ' BOX ') + 3)
WHERE (street_key LIKE 'PO BOX %' AND street_key NOT LIKE 'PO BOX % %')
    OR ((street_key LIKE 'RR % BOX %' OR street_key LIKE 'HC % BOX %')
        AND street_key NOT LIKE '% % % % %');

UPDATE leads SET address_key = street_key || substr(address_key, strpos(address_key, '|'))
WHERE (street_key LIKE '% PO BOX' AND street_key NOT LIKE '% % PO BOX')
    OR ((street_key LIKE '% RR % BOX' OR street_key LIKE '% HC % BOX')
        AND street_key NOT LIKE '% % % % BOX');

DELETE FROM geocode_cache WHERE address_key LIKE 'PO BOX %|%' OR address_key LIKE 'RR % BOX %|%'
    OR address_key LIKE 'HC % BOX %|%';
