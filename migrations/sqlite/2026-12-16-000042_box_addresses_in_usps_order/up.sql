-- A box address's keys in Publication 28's order, the box's number last: "PO BOX 55", "RR 2 BOX 15"
-- (domain::address::AddressKey::street_key), so address_standardized reads as the Postal Service
-- writes it. Such a key was "<number> <street>" with no unit, its street "PO BOX" or
-- "RR|HC <route> BOX"; the address_key is the street_key, "|" and the locality.
UPDATE leads
SET street_key = substr(street_key, instr(street_key, ' ') + 1) || ' '
        || substr(street_key, 1, instr(street_key, ' ') - 1),
    address_key = CASE
        WHEN substr(address_key, 1, length(street_key) + 1) = street_key || '|'
        THEN substr(street_key, instr(street_key, ' ') + 1) || ' '
            || substr(street_key, 1, instr(street_key, ' ') - 1)
            || substr(address_key, length(street_key) + 1)
        ELSE address_key
    END
WHERE street_key LIKE '% PO BOX' OR street_key LIKE '% RR % BOX' OR street_key LIKE '% HC % BOX';

-- Geocoder answers are cached by the address_key: the old keys would never be asked again.
DELETE FROM geocode_cache
WHERE address_key LIKE '% PO BOX|%' OR address_key LIKE '% RR % BOX|%'
    OR address_key LIKE '% HC % BOX|%';
