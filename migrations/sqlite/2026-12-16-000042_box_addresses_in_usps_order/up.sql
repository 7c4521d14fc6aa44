-- A box address's keys in Publication 28's order, the box's number last: "PO BOX 55", "RR 2 BOX 15"
-- (domain::address::AddressKey::street_key), so address_standardized reads as the Postal Service
-- writes it. Such a key was "<number> <street>", its street "PO BOX" or "RR|HC <route> BOX".
UPDATE leads SET street_key = substr(street_key, instr(street_key, ' ') + 1) || ' '
    || substr(street_key, 1, instr(street_key, ' ') - 1)
WHERE (street_key LIKE '% PO BOX' AND street_key NOT LIKE '% % PO BOX')
    OR ((street_key LIKE '% RR % BOX' OR street_key LIKE '% HC % BOX')
        AND street_key NOT LIKE '% % % % BOX');

-- The address_key is the street_key, "|" and the locality (none on a lead merged away).
UPDATE leads SET address_key = street_key || substr(address_key, instr(address_key, '|'))
WHERE (street_key LIKE 'PO BOX %' AND street_key NOT LIKE 'PO BOX % %')
    OR ((street_key LIKE 'RR % BOX %' OR street_key LIKE 'HC % BOX %')
        AND street_key NOT LIKE '% % % % %');

-- Geocoder answers are cached by the address_key: the old keys would never be asked again.
DELETE FROM geocode_cache WHERE address_key LIKE '% PO BOX|%' OR address_key LIKE '% RR % BOX|%'
    OR address_key LIKE '% HC % BOX|%';
