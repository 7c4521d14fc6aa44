#!/usr/bin/env python3
"""Writes address_pairs.csv: labelled pairs of US property addresses for the dedupe corpus.

Deterministic (fixed seed): run `python3 make_address_pairs.py` in this folder to rebuild.
Streets, cities, states and ZIP codes are real; house numbers and units are drawn at random.
A `same` pair is one property written two ways that people really use; a `different` pair is a
near miss, another property whose written form differs by one part. Pairs whose truth is
ambiguous in the real world (MLK Blvd vs Martin Luther King Jr Blvd, Lakeshore vs Lake Shore,
Hwy 71 vs State Hwy 71) are left out rather than labelled by guess.
"""
import csv
import random


SUFFIX_FORMS = {
    "ST": ["Street", "St", "St.", "Str", "STREET"], "AVE": ["Avenue", "Ave", "Ave.", "Av", "Avn"],
    "BLVD": ["Boulevard", "Blvd", "Blvd.", "Boul"], "DR": ["Drive", "Dr", "Dr.", "Drv"],
    "CT": ["Court", "Ct", "Ct."], "LN": ["Lane", "Ln", "Ln."], "RD": ["Road", "Rd", "Rd."],
    "PL": ["Place", "Pl", "Pl."], "CIR": ["Circle", "Cir", "Circ", "Crcl"],
    "TER": ["Terrace", "Ter", "Terr"], "PKWY": ["Parkway", "Pkwy", "Pky", "Pkway"],
    "TRL": ["Trail", "Trl"], "WAY": ["Way", "Wy"], "SQ": ["Square", "Sq"], "PIKE": ["Pike"],
    "EXPY": ["Expressway", "Expy", "Expy."], "PLZ": ["Plaza", "Plz"],
    "HWY": ["Highway", "Hwy"], "MALL": ["Mall"], "LOOP": ["Loop"], "XING": ["Crossing", "Xing"],
    "HTS": ["Heights", "Hts"], "CV": ["Cove", "Cv"], "PT": ["Point", "Pt"], "RDG": ["Ridge", "Rdg"],
}
DIR_FORMS = {
    "N": ["N", "N.", "North", "NORTH"], "S": ["S", "S.", "South"], "E": ["E", "E.", "East"],
    "W": ["W", "W.", "West"], "NE": ["NE", "N.E.", "Northeast", "North East", "North-East"],
    "NW": ["NW", "N.W.", "Northwest", "North West"], "SE": ["SE", "S.E.", "Southeast"],
    "SW": ["SW", "S.W.", "Southwest", "South West"],
}
OTHER_DIR = {"N": "S", "S": "N", "E": "W", "W": "E", "NE": "NW", "NW": "NE", "SE": "SW", "SW": "SE"}
OTHER_SUFFIX = {"ST": "AVE", "AVE": "ST", "BLVD": "AVE", "DR": "CIR", "CT": "CIR", "LN": "DR",
                "RD": "LN", "PL": "ST", "CIR": "CT", "TER": "CT", "PKWY": "DR", "TRL": "DR",
                "WAY": "ST", "SQ": "PL", "PIKE": "RD", "EXPY": "FWY", "PLZ": "SQ", "HWY": "RD",
                "MALL": "PL", "LOOP": "RD", "XING": "CIR", "HTS": "DR", "CV": "CT", "PT": "DR",
                "RDG": "RD"}
ONES = ["", "First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth"]
TEENS = ["Tenth", "Eleventh", "Twelfth", "Thirteenth", "Fourteenth", "Fifteenth", "Sixteenth",
         "Seventeenth", "Eighteenth", "Nineteenth"]
TENS = ["", "", "Twenty", "Thirty", "Forty", "Fifty", "Sixty", "Seventy", "Eighty", "Ninety"]
TENTHS = ["", "", "Twentieth", "Thirtieth", "Fortieth", "Fiftieth", "Sixtieth", "Seventieth",
          "Eightieth", "Ninetieth"]

rng = random.Random(28)


def spelled(n, hyphen=True):
    """21 -> Twenty-First (or Twenty First), up to 99."""
    if n < 10:
        return ONES[n]
    if n < 20:
        return TEENS[n - 10]
    if n % 10 == 0:
        return TENTHS[n // 10]
    return TENS[n // 10] + ("-" if hyphen else " ") + ONES[n % 10]


def numeral(n):
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def streets():
    """Every (city record, street dict) there is."""
    return [(c, s) for c in CITIES for s in c["streets"]]


def new_address(city, street, unit=None):
    number = street.get("number") or str(rng.choice([rng.randint(1, 99), rng.randint(100, 999),
                                                    rng.randint(1000, 9999), rng.randint(10000, 29999)]))
    return {"number": number, "street": dict(street), "unit": unit, "city": city["city"],
            "state": city["state"], "zip": rng.choice(city["zips"])}


def unit_id():
    return rng.choice([str(rng.randint(1, 40)), str(rng.randint(100, 950)),
                       f"{rng.randint(1, 12)}{rng.choice('ABCDEF')}", rng.choice("ABCDEFGH")])


def write_unit(unit, style):
    kind, ident = unit
    if kind == "floor":
        forms = [f"Fl {ident}", f"Floor {ident}", f"{numeral(int(ident))} Floor",
                 f"{numeral(int(ident))} Fl", f"FL {ident}"]
        if int(ident) < 20:
            forms.append(f"{spelled(int(ident))} Floor")
    elif kind == "lone":
        forms = {"REAR": ["Rear", "REAR", "rear"], "UPPR": ["Upper", "Uppr"],
                 "LOWR": ["Lower", "Lowr"], "BSMT": ["Basement", "Bsmt"],
                 "FRNT": ["Front", "Frnt"]}[ident]
    elif kind == "bldg":
        b, a = ident
        forms = [f"Bldg {b} Apt {a}", f"Building {b}, Apt {a}", f"Bldg {b} #{a}",
                 f"BLDG {b} UNIT {a}", f"Bldg. {b}, Unit {a}"]
    elif kind == "suite":
        forms = [f"Suite {ident}", f"Ste {ident}", f"Ste. {ident}", f"#{ident}", f"STE {ident}",
                 f"Suite #{ident}", f"Unit {ident}"]
    else:
        with_dash = ident[:-1] + "-" + ident[-1] if len(ident) > 1 and ident[-1].isalpha() else ident
        forms = [f"Apt {ident}", f"Apt. {ident}", f"#{ident}", f"# {ident}", f"Unit {ident}",
                 f"Apt #{ident}", f"Apartment {ident}", f"APT {with_dash}", f"Unit {with_dash}",
                 f"Apt. No. {ident}", f"Ste {ident}"]
    text = forms[style % len(forms)]
    return text


def write_street(street, sfx=0, dirs=0, ordinal=False, hyphen=True):
    """The street part in one written form; `sfx` and `dirs` pick the spellings."""
    kind = street.get("kind", "plain")
    if kind == "route":
        forms = street["forms"]
        body = forms[sfx % len(forms)]
        post = street.get("post")
        return body + (" " + DIR_FORMS[post][dirs % len(DIR_FORMS[post])] if post else "")
    words = []
    if street.get("pre"):
        words.append(DIR_FORMS[street["pre"]][dirs % len(DIR_FORMS[street["pre"]])])
    name = street["name"]
    if ordinal and "ord" in street:
        name = spelled(street["ord"], hyphen)
    elif "ord" in street:
        name = numeral(street["ord"])
    words.append(name)
    if street.get("suffix"):
        forms = SUFFIX_FORMS[street["suffix"]]
        words.append(forms[sfx % len(forms)])
    if street.get("post"):
        words.append(DIR_FORMS[street["post"]][dirs % len(DIR_FORMS[street["post"]])])
    return " ".join(words)


def write(addr, sfx=0, dirs=0, unit_style=0, ordinal=False, hyphen=True, comma=False,
          number=None):
    line = (number or addr["number"]) + " " + write_street(addr["street"], sfx, dirs, ordinal, hyphen)
    if addr["unit"]:
        line += ("," if comma else "") + " " + write_unit(addr["unit"], unit_style)
    return line


def plain_periods(text):
    """Drops periods and apostrophes, as a typist in a hurry does."""
    return text.replace(".", "").replace("'", "")


# ---- Real streets by city: name, C1 suffix, directionals. "ord" marks a numbered street. ----
def S(name, suffix=None, pre=None, post=None, **kw):
    d = {"name": name, "suffix": suffix, "pre": pre, "post": post}
    d.update(kw)
    return d


def O(n, suffix, pre=None, post=None, **kw):
    return S(numeral(n), suffix, pre, post, ord=n, **kw)


def R(forms, post=None):
    """A numbered road: every list item is one written form of the same road."""
    return {"kind": "route", "forms": forms, "post": post, "name": forms[0], "road": True}


def A(letter):
    """A lettered avenue (Brooklyn's Avenue J, Lancaster's Avenue K)."""
    return {"kind": "route", "forms": [f"Avenue {letter}", f"Ave {letter}", f"Ave. {letter}",
                                       f"AV {letter}"], "name": f"Avenue {letter}", "letter": letter}


CITIES = [
    {"city": "New York", "state": "NY", "zips": ["10001", "10011", "10025", "10027", "10009"],
     "streets": [O(34, "ST", "W"), O(5, "AVE"), S("Broadway"), O(86, "ST", "E"), S("Park", "AVE"),
                 S("Amsterdam", "AVE"), O(125, "ST", "W"), S("Riverside", "DR"),
                 S("Houston", "ST", "E"), S("Lexington", "AVE"), A("C"), A("B"),
                 S("Park", "AVE", post="S"), S("Saint Marks", "PL"), O(7, "AVE", post="S")]},
    {"city": "Brooklyn", "state": "NY", "zips": ["11201", "11215", "11230", "11229"],
     "streets": [A("J"), A("U"), A("N"), S("Ocean", "PKWY"), S("Flatbush", "AVE"), O(7, "AVE"),
                 S("Atlantic", "AVE"), S("Bedford", "AVE"), S("Court", "ST")]},
    {"city": "Astoria", "state": "NY", "zips": ["11102", "11103", "11105", "11106"],
     "streets": [O(21, "ST", queens=True), S("Ditmars", "BLVD", queens=True),
                 O(31, "AVE", queens=True), S("Steinway", "ST", queens=True)]},
    {"city": "Jackson Heights", "state": "NY", "zips": ["11372"],
     "streets": [O(37, "AVE", queens=True), O(74, "ST", queens=True),
                 S("Roosevelt", "AVE", queens=True)]},
    {"city": "Chicago", "state": "IL", "zips": ["60601", "60607", "60614", "60616", "60637"],
     "streets": [S("Michigan", "AVE", "N"), S("Madison", "ST", "W"), S("State", "ST", "S"),
                 S("Clark", "ST", "N"), S("Fullerton", "AVE", "W"), S("Wacker", "DR", "S"),
                 S("Lake Shore", "DR", "N"), O(63, "ST", "W"), S("Martin Luther King", "DR", "S"),
                 S("Milwaukee", "AVE", "N"), S("Halsted", "ST", "S")]},
    {"city": "Washington", "state": "DC", "zips": ["20001", "20002", "20003", "20009", "20011"],
     "streets": [S("Pennsylvania", "AVE", post="NW"), S("N", "ST", post="NW"),
                 S("Massachusetts", "AVE", post="NE"), S("K", "ST", post="NW"),
                 O(16, "ST", post="NW"), S("Constitution", "AVE", post="NW"),
                 S("Capitol", "ST", "E", "NE"), S("Rhode Island", "AVE", post="NE"),
                 S("Georgia", "AVE", post="NW"), S("E", "ST", post="SE"), O(14, "ST", post="NW")]},
    {"city": "Atlanta", "state": "GA", "zips": ["30303", "30308", "30309", "30312", "30318"],
     "streets": [S("Peachtree", "ST", post="NE"), S("Ponce de Leon", "AVE", post="NE"),
                 S("Piedmont", "AVE", post="NE"), O(10, "ST", post="NW"),
                 S("Memorial", "DR", post="SE"), S("Howell Mill", "RD", post="NW")]},
    {"city": "Salt Lake City", "state": "UT", "zips": ["84101", "84102", "84111", "84105"],
     "streets": [S("300", None, "S", "W"), S("400", None, "E", "S"), S("State", "ST", "S"),
                 S("Main", "ST", "S"), S("900", None, "E", "S"), S("1300", None, "E", "S")]},
    {"city": "Los Angeles", "state": "CA", "zips": ["90012", "90028", "90036", "90046", "90026"],
     "streets": [S("Sunset", "BLVD"), O(3, "ST", "W"), S("Broadway", None, "S"),
                 S("Wilshire", "BLVD"), S("Fairfax", "AVE", "N"), S("Hollywood", "BLVD"),
                 S("Figueroa", "ST", "S"), S("Echo Park", "AVE"), S("La Brea", "AVE", "S")]},
    {"city": "San Francisco", "state": "CA", "zips": ["94102", "94109", "94110", "94115", "94117"],
     "streets": [S("O'Farrell", "ST"), S("Market", "ST"), S("Mission", "ST"),
                 S("Van Ness", "AVE"), S("Valencia", "ST"), S("Geary", "BLVD"), O(24, "ST"),
                 S("Lombard", "ST"), S("Haight", "ST"), S("Divisadero", "ST")]},
    {"city": "Seattle", "state": "WA", "zips": ["98101", "98103", "98109", "98122", "98115"],
     "streets": [S("Pike", "ST"), O(45, "ST", "NE"), S("Aurora", "AVE", post="N"),
                 O(15, "AVE", post="E"), S("Rainier", "AVE", post="S"), S("Alaska", "ST", "SW"),
                 S("Market", "ST", "NW"), S("Roosevelt", "WAY", post="NE")]},
    {"city": "Portland", "state": "OR", "zips": ["97201", "97205", "97209", "97214", "97211"],
     "streets": [S("Hawthorne", "BLVD", "SE"), O(23, "AVE", "NW"), S("Broadway", None, "SW"),
                 S("Alberta", "ST", "NE"), S("Williams", "AVE", "N"), S("Division", "ST", "SE")]},
    {"city": "Austin", "state": "TX", "zips": ["78701", "78702", "78704", "78745", "78751"],
     "streets": [S("Congress", "AVE"), S("Lamar", "BLVD", "S"), O(6, "ST", "E"),
                 S("Slaughter", "LN", "W"), S("Burnet", "RD"), S("Manchaca", "RD"),
                 S("Cesar Chavez", "ST", "E"), R(["Hwy 71", "Highway 71", "HWY. 71", "Hiway 71"], "W"),
                 S("Airport", "BLVD"), O(38, "ST", "W")]},
    {"city": "Houston", "state": "TX", "zips": ["77002", "77006", "77019", "77056", "77007"],
     "streets": [S("Westheimer", "RD"), S("Main", "ST"), S("Richmond", "AVE"),
                 S("Montrose", "BLVD"), S("Washington", "AVE"), S("Allen", "PKWY"),
                 O(11, "ST", "W"), S("Heights", "BLVD")]},
    {"city": "Spring", "state": "TX", "zips": ["77379", "77388"],
     "streets": [R(["FM 2920", "Farm to Market Road 2920", "F.M. 2920", "Farm To Market 2920"]),
                 R(["Louetta Rd", "Louetta Road"])]},
    {"city": "Dallas", "state": "TX", "zips": ["75201", "75204", "75219", "75206"],
     "streets": [S("Main", "ST"), S("Ross", "AVE"), S("McKinney", "AVE"),
                 S("Central", "EXPY", "N"), S("Cedar Springs", "RD"), S("Greenville", "AVE")]},
    {"city": "San Antonio", "state": "TX", "zips": ["78205", "78209", "78212", "78215"],
     "streets": [S("Broadway"), S("Saint Marys", "ST", "N"), S("Fredericksburg", "RD"),
                 R(["Loop 410", "LOOP 410"]), S("Alamo", "ST", "S"),
                 S("Commerce", "ST", "E")]},
    {"city": "Bastrop", "state": "TX", "zips": ["78602"],
     "streets": [R(["County Road 304", "CR 304", "Co Rd 304", "County Rd 304", "Cnty Rd 304"]),
                 R(["FM 969", "Farm to Market Road 969", "FM Road 969"]),
                 R(["State Highway 21", "State Hwy 21", "SH 21", "St Hwy 21"], "E"),
                 S("Chestnut", "ST")]},
    {"city": "Phoenix", "state": "AZ", "zips": ["85003", "85004", "85012", "85016", "85008"],
     "streets": [S("Central", "AVE", "N"), S("Camelback", "RD", "E"), S("Indian School", "RD", "W"),
                 O(7, "ST", "N"), S("McDowell", "RD", "E"), O(24, "ST", "N"), O(16, "ST", "N")]},
    {"city": "Flagstaff", "state": "AZ", "zips": ["86001", "86004"],
     "streets": [R(["Route 66", "Rte 66", "RTE. 66", "ROUTE 66"]),
                 S("San Francisco", "ST", "N"), S("Butler", "AVE", "E")]},
    {"city": "Denver", "state": "CO", "zips": ["80202", "80203", "80205", "80218", "80210"],
     "streets": [S("Larimer", "ST"), S("Colfax", "AVE", "E"), O(17, "ST"), S("Speer", "BLVD"),
                 S("Broadway", None, "S"), S("York", "ST"), S("Federal", "BLVD", "N")]},
    {"city": "Miami", "state": "FL", "zips": ["33130", "33131", "33137", "33142", "33125"],
     "streets": [O(7, "AVE", "NW"), O(8, "ST", "SW"), S("Biscayne", "BLVD"), S("Brickell", "AVE"),
                 O(2, "AVE", "NE"), O(36, "ST", "NW"), O(27, "AVE", "SW"),
                 R(["State Road 7", "SR 7", "State Rd 7", "State Route 7"])]},
    {"city": "Boston", "state": "MA", "zips": ["02108", "02110", "02116", "02118", "02215"],
     "streets": [S("Beacon", "ST"), S("Commonwealth", "AVE"), S("Tremont", "ST"),
                 S("Boylston", "ST"), S("Massachusetts", "AVE"), S("Washington", "ST"),
                 S("Dorchester", "AVE"), S("Saint Botolph", "ST")]},
    {"city": "Philadelphia", "state": "PA", "zips": ["19103", "19106", "19107", "19147", "19125"],
     "streets": [S("Market", "ST"), S("Broad", "ST", "S"), S("Chestnut", "ST"), S("Walnut", "ST"),
                 S("Spring Garden", "ST"), O(5, "ST", "N"), S("Germantown", "AVE"),
                 S("Passyunk", "AVE", "E"), S("Frankford", "AVE")]},
    {"city": "Baltimore", "state": "MD", "zips": ["21201", "21202", "21224", "21231", "21218"],
     "streets": [S("Charles", "ST", "N"), S("Fayette", "ST", "E"), S("Eastern", "AVE"),
                 S("Broadway", None, "S"), S("Pratt", "ST", "W"), S("Greenmount", "AVE")]},
    {"city": "Minneapolis", "state": "MN", "zips": ["55401", "55403", "55408", "55405"],
     "streets": [S("Hennepin", "AVE"), S("Nicollet", "MALL"), S("Lyndale", "AVE", post="S"),
                 S("Lake", "ST", "E"), S("Lagoon", "AVE", "W"), S("Franklin", "AVE", "E")]},
    {"city": "Burnsville", "state": "MN", "zips": ["55337", "55306"],
     "streets": [R(["County Road 42", "County Rd 42", "CR 42", "Co Rd 42"], "W"),
                 S("Nicollet", "AVE"), S("Burnsville", "PKWY")]},
    {"city": "St. Louis", "state": "MO", "zips": ["63101", "63103", "63104", "63110", "63118"],
     "alt_city": ["Saint Louis", "St Louis", "ST. LOUIS", "saint louis"],
     "streets": [S("Washington", "AVE"), S("Grand", "BLVD", "S"), S("Market", "ST"),
                 S("Lafayette", "AVE"), S("Manchester", "AVE"), S("Jefferson", "AVE", "S")]},
    {"city": "St. Paul", "state": "MN", "zips": ["55101", "55102", "55104", "55105"],
     "alt_city": ["Saint Paul", "St Paul", "ST PAUL"],
     "streets": [S("University", "AVE", post="W"), S("Grand", "AVE"), O(7, "ST", "W"),
                 S("Summit", "AVE"), S("Selby", "AVE")]},
    {"city": "New Orleans", "state": "LA", "zips": ["70112", "70116", "70130", "70115"],
     "streets": [S("Saint Charles", "AVE"), S("Magazine", "ST"), S("Decatur", "ST"),
                 S("Esplanade", "AVE"), S("Rampart", "ST", "N"), S("Canal", "ST"),
                 S("Tchoupitoulas", "ST"), S("Saint Claude", "AVE")]},
    {"city": "Nashville", "state": "TN", "zips": ["37203", "37206", "37208", "37212"],
     "streets": [S("Broadway"), S("Music", "SQ", post="E"), S("Charlotte", "PIKE"),
                 S("Gallatin", "PIKE"), S("Hillsboro", "PIKE"), O(21, "AVE", post="S"),
                 O(12, "AVE", post="S")]},
    {"city": "Memphis", "state": "TN", "zips": ["38103", "38104", "38111", "38117"],
     "streets": [S("Beale", "ST"), S("Union", "AVE"), S("Poplar", "AVE"), S("Summer", "AVE"),
                 S("Elvis Presley", "BLVD"), S("Highland", "ST", "S")]},
    {"city": "Detroit", "state": "MI", "zips": ["48201", "48207", "48226", "48208"],
     "streets": [S("Woodward", "AVE"), S("Gratiot", "AVE"), S("Grand", "BLVD", "W"),
                 S("Jefferson", "AVE", "E"), S("Michigan", "AVE"), S("Vernor", "HWY", "W")]},
    {"city": "Cleveland", "state": "OH", "zips": ["44103", "44113", "44114", "44102"],
     "streets": [S("Euclid", "AVE"), S("Superior", "AVE", post="E"), S("Lorain", "AVE"),
                 O(25, "ST", "W"), O(55, "ST", "E"), S("Detroit", "AVE")]},
    {"city": "Dublin", "state": "OH", "zips": ["43016", "43017"],
     "streets": [R(["State Route 161", "SR 161", "State Rte 161", "St Rt 161", "State Road 161"], "W"),
                 S("Dublin Granville", "RD", "W"), S("Bridge", "ST", "W")]},
    {"city": "Columbus", "state": "OH", "zips": ["43201", "43205", "43215", "43206"],
     "streets": [S("High", "ST", "N"), S("Broad", "ST", "E"), O(4, "ST", "S"), S("Parsons", "AVE")]},
    {"city": "Cincinnati", "state": "OH", "zips": ["45202", "45206", "45219", "45220"],
     "streets": [S("Vine", "ST"), S("Reading", "RD"), S("Madison", "RD"), S("Elm", "ST"),
                 S("Central", "PKWY")]},
    {"city": "Pittsburgh", "state": "PA", "zips": ["15212", "15213", "15222", "15203"],
     "streets": [S("Forbes", "AVE"), S("Liberty", "AVE"), S("Penn", "AVE"), O(5, "AVE"),
                 S("Murray", "AVE"), S("Carson", "ST", "E")]},
    {"city": "Charlotte", "state": "NC", "zips": ["28202", "28203", "28204", "28205"],
     "streets": [S("Tryon", "ST", "S"), S("Tryon", "ST", "N"), S("Providence", "RD"),
                 S("Central", "AVE"), S("The", "PLZ"), S("Kings", "DR")]},
    {"city": "Winston-Salem", "state": "NC", "zips": ["27101", "27103", "27104"],
     "alt_city": ["Winston Salem", "WINSTON-SALEM", "winston salem"],
     "streets": [S("Main", "ST", "N"), S("Reynolda", "RD"), S("Stratford", "RD"),
                 S("Fourth", "ST", "W", ord=4)]},
    {"city": "Las Vegas", "state": "NV", "zips": ["89101", "89104", "89109", "89119"],
     "streets": [S("Las Vegas", "BLVD", post="S"), S("Fremont", "ST", "E"),
                 S("Maryland", "PKWY", "S"), S("Sahara", "AVE", "W"), S("Tropicana", "AVE", "E")]},
    {"city": "Albuquerque", "state": "NM", "zips": ["87102", "87106", "87108", "87110"],
     "streets": [S("Central", "AVE", post="NE"), S("Central", "AVE", post="SW"),
                 S("Lomas", "BLVD", post="NE"), O(4, "ST", post="NW"),
                 S("San Mateo", "BLVD", post="NE")]},
    {"city": "Kansas City", "state": "MO", "zips": ["64105", "64108", "64111", "64109"],
     "streets": [S("Main", "ST"), S("Grand", "BLVD"), S("Troost", "AVE"), O(39, "ST", "W"),
                 S("Broadway", "BLVD")]},
    {"city": "Omaha", "state": "NE", "zips": ["68102", "68105", "68131", "68106"],
     "streets": [S("Farnam", "ST"), S("Dodge", "ST"), S("Leavenworth", "ST"), O(30, "ST", "N"),
                 O(24, "ST", "S"), S("Saddle Creek", "RD")]},
    {"city": "Milwaukee", "state": "WI", "zips": ["53202", "53204", "53212", "53207"],
     "streets": [S("Water", "ST", "N"), S("Wisconsin", "AVE", "W"), S("Brady", "ST", "E"),
                 S("Kinnickinnic", "AVE", "S"), S("Martin Luther King", "DR", "N")]},
    {"city": "Menomonee Falls", "state": "WI", "zips": ["53051"],
     "streets": [S("Appleton", "AVE", grid=True), S("Main", "ST", grid=True),
                 R(["County Road Q", "County Rd Q", "Co Rd Q"])]},
    {"city": "Honolulu", "state": "HI", "zips": ["96813", "96815", "96822", "96826"],
     "streets": [S("Kalakaua", "AVE"), S("King", "ST", "S"), S("Kapiolani", "BLVD"),
                 S("Ala Moana", "BLVD"), S("Beretania", "ST", "S")]},
    {"city": "Anchorage", "state": "AK", "zips": ["99501", "99503", "99508"],
     "streets": [O(4, "AVE", "W"), S("Northern Lights", "BLVD", "E"), S("C", "ST"),
                 S("Spenard", "RD"), S("Muldoon", "RD")]},
    {"city": "Lancaster", "state": "CA", "zips": ["93534", "93535", "93536"],
     "streets": [A("J"), A("K"), A("I"), S("Sierra", "HWY"), S("Lancaster", "BLVD", "W")]},
    {"city": "Fort Worth", "state": "TX", "zips": ["76102", "76104", "76107", "76110"],
     "alt_city": ["Ft. Worth", "Ft Worth", "FORT WORTH"],
     "streets": [S("Magnolia", "AVE", "W"), S("Main", "ST"), S("Camp Bowie", "BLVD"),
                 O(7, "ST", "W"), S("Hemphill", "ST")]},
    {"city": "Tucson", "state": "AZ", "zips": ["85701", "85705", "85719"],
     "streets": [S("Speedway", "BLVD", "E"), S("Stone", "AVE", "N"), S("Congress", "ST", "E"),
                 S("Campbell", "AVE", "N")]},
    {"city": "Boise", "state": "ID", "zips": ["83702", "83705", "83706"],
     "streets": [S("Main", "ST", "W"), S("Capitol", "BLVD", "S"), S("Harrison", "BLVD", "N"),
                 S("Warm Springs", "AVE", "E")]},
    {"city": "Providence", "state": "RI", "zips": ["02903", "02906", "02908"],
     "streets": [S("Westminster", "ST"), S("Thayer", "ST"), S("Atwells", "AVE"),
                 S("Hope", "ST"), S("Broad", "ST")]},
    {"city": "Hartford", "state": "CT", "zips": ["06103", "06105", "06106"],
     "streets": [S("Main", "ST"), S("Farmington", "AVE"), S("Asylum", "ST"),
                 S("Prospect", "AVE"), S("Oak", "CT")]},
    {"city": "Burlington", "state": "VT", "zips": ["05401", "05408"],
     "streets": [S("Church", "ST"), S("Pearl", "ST"), S("North", "AVE"), S("Main", "ST")]},
    {"city": "Des Moines", "state": "IA", "zips": ["50309", "50312", "50314"],
     "streets": [S("Grand", "AVE"), S("Ingersoll", "AVE"), S("Locust", "ST"),
                 S("Martin Luther King Jr", "PKWY"), S("Court", "AVE")]},
    {"city": "Oklahoma City", "state": "OK", "zips": ["73102", "73103", "73118"],
     "streets": [S("Classen", "BLVD", "N"), O(23, "ST", "NW"), S("Western", "AVE", "N"),
                 S("Reno", "AVE", "W")]},
    {"city": "Bend", "state": "OR", "zips": ["97701", "97702"],
     "streets": [S("Wall", "ST", "NW"), S("Bond", "ST", "NW"), R(["US Hwy 20", "US Highway 20",
                 "U.S. Highway 20", "US 20", "US Route 20"]), S("Greenwood", "AVE", "NE")]},
    {"city": "Franklin", "state": "TN", "zips": ["37064", "37067", "37069"],
     "streets": [S("Hillsboro", "RD"), S("Lewisburg", "PIKE"), S("Main", "ST"),
                 S("Mallory", "LN"), S("Cool Springs", "BLVD")]},
    {"city": "Mount Pleasant", "state": "SC", "zips": ["29464", "29466"],
     "alt_city": ["Mt. Pleasant", "Mt Pleasant", "MOUNT PLEASANT"],
     "streets": [S("Coleman", "BLVD"), S("Johnnie Dodds", "BLVD"), S("Shem", "DR")]},
]

# Streets that differ from another by a letter or a word: near misses for `other_street`.
NEAR_NAMES = [("Main", "Maine"), ("Oak", "Oakland"), ("Elm", "Elmwood"), ("Pine", "Pines"),
              ("Cedar", "Cedars"), ("Park", "Parkside"), ("Lake", "Lakes"), ("Hill", "Hills"),
              ("Washington", "Washburn"), ("Lincoln", "Lincolnshire"), ("Grand", "Granada"),
              ("Madison", "Madison Park"), ("Center", "Centre Hall"), ("Maple", "Maplewood"),
              ("Spring", "Springs"), ("Church", "Churchill"), ("Mill", "Millers"),
              ("Forest", "Forest Hill"), ("High", "Highland"), ("Union", "Unity"),
              ("Cherry", "Cherry Hill"), ("Walnut", "Walnut Grove")]

# Neighbouring cities in one state, for a lead without ZIP placed in another town.
NEIGHBOURS = [("Dallas", "Garland", "TX"), ("Austin", "Round Rock", "TX"),
              ("Minneapolis", "St. Paul", "MN"), ("Portland", "Beaverton", "OR"),
              ("Phoenix", "Tempe", "AZ"), ("Seattle", "Bellevue", "WA"),
              ("Chicago", "Evanston", "IL"), ("Denver", "Aurora", "CO"),
              ("Boston", "Cambridge", "MA"), ("Charlotte", "Matthews", "NC"),
              ("Kansas City", "Independence", "MO"), ("Cleveland", "Lakewood", "OH")]


# ---- Rendering with noise ----
def recase(text, how):
    if how == 1:
        return text.upper()
    if how == 2:
        return text.lower()
    if how == 3:
        return " ".join(w[:1].upper() + w[1:].lower() for w in text.split(" "))
    return text


def respace(text):
    """Doubled spaces, a tab, stray leading and trailing blanks."""
    words = text.split(" ")
    out = words[0]
    for w in words[1:]:
        out += rng.choice(["  ", " ", "\t", "   "]) + w
    return rng.choice(["", " ", "  "]) + out.replace(",", rng.choice([",", " ,", ",  "])) + \
        rng.choice(["", " ", "\t"])


def any_form(addr, **over):
    """One written form picked at random: suffix, directional and unit spellings, case."""
    opts = dict(sfx=rng.randrange(8), dirs=rng.randrange(8), unit_style=rng.randrange(12),
                comma=rng.random() < 0.3)
    opts.update(over)
    return recase(write(addr, **opts), rng.choice([0, 0, 1, 2, 3]))


def row(label, kind, a, b):
    return [label, kind] + list(a) + list(b)


def fields(addr, line, city=None, zip_=None):
    return (line, addr["city"] if city is None else city, addr["state"],
            addr["zip"] if zip_ is None else zip_)


def pick(pred):
    pool = [(c, s) for c, s in streets() if pred(c, s)]
    return rng.choice(pool)


def house_number(city, street):
    if street.get("queens"):
        return f"{rng.randint(10, 99)}-{rng.randint(1, 99):02d}"
    if street.get("grid"):
        return f"N{rng.randint(50, 99)}W{rng.randint(12000, 17999)}"
    return None


def address(pred=lambda c, s: True, unit=None):
    city, street = pick(pred)
    addr = new_address(city, street, unit)
    addr["number"] = house_number(city, street) or addr["number"]
    addr["city_rec"] = city
    return addr


def random_unit():
    r = rng.random()
    if r < 0.55:
        return ("apt", unit_id())
    if r < 0.7:
        return ("suite", str(rng.choice([100, 110, 200, 210, 300, 1250, 4, 12])))
    if r < 0.8:
        return ("floor", str(rng.randint(2, 12)))
    if r < 0.9:
        return ("lone", rng.choice(["REAR", "UPPR", "LOWR", "BSMT", "FRNT"]))
    return ("bldg", (str(rng.randint(1, 9)), str(rng.randint(1, 30))))


def two(n):
    i = rng.randrange(n)
    return i, (i + rng.randrange(1, n)) % n if n > 1 else i


# ---- Same property, written two ways ----
def same_suffix_spelling():
    addr = address(lambda c, s: s.get("suffix") in SUFFIX_FORMS and len(SUFFIX_FORMS[s["suffix"]]) > 1
                   or "letter" in s, unit=random_unit() if rng.random() < 0.3 else None)
    n = len(SUFFIX_FORMS[addr["street"]["suffix"]]) if "letter" not in addr["street"] \
        else len(addr["street"]["forms"])
    i, j = two(n)
    return fields(addr, write(addr, sfx=i)), fields(addr, write(addr, sfx=j))


def same_directional_spelling():
    addr = address(lambda c, s: s.get("pre") or s.get("post"),
                   unit=random_unit() if rng.random() < 0.3 else None)
    d = addr["street"].get("pre") or addr["street"].get("post")
    i, j = two(len(DIR_FORMS[d]))
    return fields(addr, write(addr, dirs=i)), fields(addr, write(addr, dirs=j))


def same_unit_form():
    addr = address(unit=random_unit())
    while addr["unit"][0] == "lone" and rng.random() < 0.5:
        addr["unit"] = random_unit()
    i, j = two(12)
    a = write(addr, unit_style=i, comma=rng.random() < 0.3)
    b = write(addr, unit_style=j, comma=rng.random() < 0.5)
    return fields(addr, a), fields(addr, b)


def same_case():
    addr = address(unit=random_unit() if rng.random() < 0.3 else None)
    line = write(addr, sfx=rng.randrange(3))
    i, j = two(4)
    city = addr["city"]
    return fields(addr, recase(line, i), recase(city, i)), \
        (recase(line, j), recase(city, j), rng.choice([addr["state"], addr["state"].lower()]), addr["zip"])


def same_punctuation():
    addr = address(lambda c, s: "letter" not in s, unit=random_unit() if rng.random() < 0.5 else None)
    street = addr["street"]
    # The written form with the most punctuation in it, against the bare one.
    sfx = next((k for k, f in enumerate(SUFFIX_FORMS.get(street.get("suffix"), [])) if "." in f), 0)
    dirs = next((k for k, f in enumerate(DIR_FORMS.get(street.get("pre") or street.get("post"), []))
                 if "." in f), 0)
    a = write(addr, sfx=sfx, dirs=dirs, unit_style=1, comma=True)
    b = plain_periods(a).replace(",", "") if rng.random() < 0.6 else plain_periods(a)
    return fields(addr, a), fields(addr, b)


def same_zip4():
    addr = address(unit=random_unit() if rng.random() < 0.3 else None)
    line = write(addr, sfx=rng.randrange(3))
    plus = f"{rng.randint(0, 9999):04d}"
    z = rng.choice([f"{addr['zip']}-{plus}", f"{addr['zip']}{plus}", f"{addr['zip']}-{plus}"])
    return fields(addr, line), fields(addr, line if rng.random() < 0.7 else any_form(addr), zip_=z)


def same_missing_zip():
    addr = address(lambda c, s: rng.random() < 0.5 or "alt_city" in c,
                   unit=random_unit() if rng.random() < 0.3 else None)
    alt = addr["city_rec"].get("alt_city") or [addr["city"].upper(), addr["city"].lower()]
    line = write(addr, sfx=rng.randrange(3))
    b = (line, rng.choice(alt), rng.choice([addr["state"], addr["state"].lower()]), "")
    return (fields(addr, line), b) if rng.random() < 0.5 else (b, fields(addr, line))


def same_whitespace():
    addr = address(unit=random_unit() if rng.random() < 0.5 else None)
    line = write(addr, sfx=rng.randrange(3), comma=rng.random() < 0.5)
    return fields(addr, line), fields(addr, respace(line), city=" " + addr["city"] + "  ")


def same_ordinal():
    addr = address(lambda c, s: "ord" in s and s["ord"] < 100,
                   unit=random_unit() if rng.random() < 0.3 else None)
    a = write(addr, sfx=rng.randrange(2))
    b = write(addr, sfx=rng.randrange(2), ordinal=True, hyphen=rng.random() < 0.6)
    return fields(addr, a), fields(addr, recase(b, rng.choice([0, 1, 3])))


def same_highway():
    addr = address(lambda c, s: s.get("road") and len(s["forms"]) > 1,
                   unit=random_unit() if rng.random() < 0.2 else None)
    i, j = two(len(addr["street"]["forms"]))
    return fields(addr, write(addr, sfx=i)), fields(addr, write(addr, sfx=j, dirs=rng.randrange(3)))


def same_po_box():
    city, _ = pick(lambda c, s: True)
    n = str(rng.choice([rng.randint(1, 999), rng.randint(1000, 99999)]))
    if rng.random() < 0.8:
        forms = [f"PO Box {n}", f"P.O. Box {n}", f"P O Box {n}", f"Post Office Box {n}",
                 f"PO BOX {n}", f"Box {n}", f"POB {n}", f"P.O. BOX #{n}", f"po box {n}"]
    else:
        r = rng.randint(1, 9)
        forms = [f"RR {r} Box {n}", f"Rural Route {r} Box {n}", f"R.R. {r} Box {n}",
                 f"Rural Rte {r} Box {n}"]
    i, j = two(len(forms))
    addr = {"city": city["city"], "state": city["state"], "zip": rng.choice(city["zips"])}
    return fields(addr, forms[i]), fields(addr, forms[j])


def same_house_fraction():
    addr = address(lambda c, s: not s.get("queens") and not s.get("grid"))
    base = str(rng.randint(10, 4999))
    frac = rng.choice(["1/2", "1/2", "1/4", "3/4"])
    glyph = {"1/2": "\u00bd", "1/4": "\u00bc", "3/4": "\u00be"}[frac]
    forms = [f"{base} {frac}", f"{base}-{frac}", f"{base}{glyph}", f"{base} {glyph}"]
    i, j = two(len(forms))
    return fields(addr, write(addr, number=forms[i])), fields(addr, write(addr, number=forms[j]))


def same_inline_locality():
    addr = address(unit=random_unit() if rng.random() < 0.3 else None)
    line = write(addr, sfx=rng.randrange(3))
    z = addr["zip"]
    tail = rng.choice([f", {addr['city']}, {addr['state']} {z}", f", {addr['city']} {addr['state']} {z}",
                       f" {addr['city']}, {addr['state']} {z}", f", {addr['city']}, {addr['state']}",
                       f", {addr['city']}, {addr['state']} {z}-{rng.randint(0, 9999):04d}"])
    return fields(addr, line), fields(addr, line + tail)


def same_name_abbreviation():
    addr = address(lambda c, s: s.get("name", "").startswith("Saint "),
                   unit=random_unit() if rng.random() < 0.3 else None)
    rest = addr["street"]["name"][len("Saint "):]
    forms = [f"Saint {rest}", f"St. {rest}", f"St {rest}", f"ST. {rest}"]
    i, j = two(len(forms))
    a, b = dict(addr), dict(addr)
    a["street"] = dict(addr["street"], name=forms[i])
    b["street"] = dict(addr["street"], name=forms[j])
    return fields(a, write(a, sfx=rng.randrange(3))), fields(b, write(b, sfx=rng.randrange(3)))


# ---- Different properties: near misses, each side in its own random written form ----
def other_house_number(number):
    if "-" in number and number[0].isdigit():
        a, b = number.split("-", 1)
        return rng.choice([f"{a}-{int(b) + rng.choice([1, 2, 10]):02d}", a + b])
    if not number.isdigit():
        return rng.choice([number + "0", number[:-1] + str((int(number[-1]) + 1) % 10)])
    n = int(number)
    options = [str(n + 2), str(max(1, n - 2)), str(n + rng.choice([1, 10, 100])), number + "A",
               number + " 1/2", number + str(rng.randint(0, 9)), number[:-1] or "1"]
    if len(number) > 1 and number[-1] != number[-2]:
        options.append(number[:-2] + number[-1] + number[-2])
    return rng.choice([o for o in options if o != number])


def diff_other_number():
    addr = address(unit=random_unit() if rng.random() < 0.3 else None)
    if rng.random() < 0.12 and addr["number"].isdigit():
        # "12 Main St #34" beside "1234 Main St": the unit glued onto the number.
        ident = str(rng.randint(1, 99))
        addr["unit"] = ("apt", ident)
        b = dict(addr, unit=None)
        return fields(addr, any_form(addr, unit_style=2)), fields(b, any_form(b, number=addr["number"] + ident))
    b = dict(addr, number=other_house_number(addr["number"]))
    return fields(addr, any_form(addr)), fields(b, any_form(b))


def other_unit(unit):
    kind, ident = unit
    if kind == "lone":
        return ("lone", rng.choice([u for u in ["REAR", "UPPR", "LOWR", "BSMT", "FRNT"] if u != ident]))
    if kind == "bldg":
        b, a = ident
        return ("bldg", rng.choice([(a, b) if a != b else (b, a + "1"), (b, str(int(a) + 1)),
                                    (str(int(b) + 1), a)]))
    if kind == "floor":
        return ("floor", str(int(ident) + rng.choice([1, -1])))
    if ident.isdigit():
        n = int(ident)
        options = [str(n + 1), str(n * 10), ident + rng.choice("ABC"), str(n + 100)]
        if len(ident) > 1 and ident[0] != ident[-1]:
            options.append(ident[::-1])
        return (kind, rng.choice(options))
    if ident.isalpha():
        return (kind, rng.choice([c for c in "ABCDEFGH" if c != ident]))
    return (kind, rng.choice([ident[:-1] + chr(ord(ident[-1]) + 1), ident[:-1],
                              str(int(ident[:-1]) + 1) + ident[-1]]))


def diff_other_unit():
    addr = address(unit=random_unit())
    b = dict(addr, unit=other_unit(addr["unit"]))
    if b["unit"] == addr["unit"] or b["unit"][1] == "0":
        return diff_other_unit()
    return fields(addr, any_form(addr)), fields(b, any_form(b))


def diff_unit_vs_none():
    addr = address(unit=random_unit())
    b = dict(addr, unit=None)
    pair = (fields(addr, any_form(addr)), fields(b, any_form(b)))
    return pair if rng.random() < 0.5 else pair[::-1]


def diff_other_directional():
    addr = address(lambda c, s: s.get("pre") or (s.get("post") and s.get("kind") != "route"),
                   unit=random_unit() if rng.random() < 0.2 else None)
    street = dict(addr["street"])
    slot = "pre" if street.get("pre") and (not street.get("post") or rng.random() < 0.5) else "post"
    d = street[slot]
    near = [x for x in DIR_FORMS if x != d and (x in d or d in x)]
    street[slot] = rng.choice([OTHER_DIR[d]] + near)
    b = dict(addr, street=street)
    return fields(addr, any_form(addr)), fields(b, any_form(b))


def diff_directional_vs_none():
    addr = address(lambda c, s: s.get("kind") != "route" and s["name"] not in ("N", "E", "C", "K"),
                   unit=random_unit() if rng.random() < 0.2 else None)
    street = dict(addr["street"])
    if street.get("pre") and (not street.get("post") or rng.random() < 0.5):
        street["pre"] = None
    elif street.get("post"):
        street["post"] = None
    elif rng.random() < 0.5:
        street["pre"] = rng.choice(list(DIR_FORMS))
    else:
        street["post"] = rng.choice(list(DIR_FORMS))
    b = dict(addr, street=street)
    pair = (fields(addr, any_form(addr)), fields(b, any_form(b)))
    return pair if rng.random() < 0.5 else pair[::-1]


def diff_other_suffix():
    addr = address(lambda c, s: s.get("suffix") in OTHER_SUFFIX,
                   unit=random_unit() if rng.random() < 0.2 else None)
    other = OTHER_SUFFIX[addr["street"]["suffix"]]
    if other not in SUFFIX_FORMS:
        other = "RD"
    b = dict(addr, street=dict(addr["street"], suffix=other))
    return fields(addr, any_form(addr)), fields(b, any_form(b))


def other_street(addr):
    street = addr["street"]
    city = addr["city_rec"]
    r = rng.random()
    if "letter" in street:
        letter = rng.choice([c for c in "ABCDEFGHJKLMNOPRSTUVWXZ" if c != street["letter"]])
        return A(letter)
    if street.get("road"):
        body = street["forms"][0]
        head, number = body.rsplit(" ", 1)
        if number.isdigit():
            new = rng.choice([number[::-1] if number[::-1] != number else number + "1",
                              str(int(number) + 1), number + "0"])
        else:
            new = chr(ord(number[0]) + 1)
        return R([f"{head} {new}"], street.get("post"))
    if "ord" in street and r < 0.7:
        n = street["ord"] + rng.choice([1, -1, 10, 20]) if street["ord"] > 1 else street["ord"] + 1
        return dict(street, ord=n, name=numeral(n))
    if street["name"] in ("N", "E", "C", "K") and r < 0.8:
        long = {"N": "North", "E": "East", "C": "Center", "K": "King"}[street["name"]]
        return dict(street, name=long)
    if r < 0.5:
        near = rng.choice(NEAR_NAMES)
        first, second = near if rng.random() < 0.5 else near[::-1]
        return {
            "name": second, "suffix": street.get("suffix") or "ST", "pre": street.get("pre"),
            "post": street.get("post"), "_twin": first}
    others = [s for s in city["streets"] if s.get("kind") != "route" and s["name"] != street["name"]]
    if not others:
        return dict(street, name=street["name"] + "wood")
    o = rng.choice(others)
    return dict(o, suffix=street.get("suffix") or o.get("suffix"), pre=street.get("pre"),
                post=street.get("post"))


def diff_other_street():
    addr = address(unit=random_unit() if rng.random() < 0.2 else None)
    other = other_street(addr)
    if "_twin" in other:
        # Near-miss names: both sides invented, "Main St" beside "Maine St".
        twin = {k: v for k, v in other.items() if k != "_twin"}
        addr["street"] = dict(twin, name=other["_twin"])
        other = twin
    b = dict(addr, street=other)
    return fields(addr, any_form(addr)), fields(b, any_form(b))


def diff_other_zip():
    addr = address(lambda c, s: len(c["zips"]) > 1, unit=random_unit() if rng.random() < 0.2 else None)
    z = rng.choice([z for z in addr["city_rec"]["zips"] if z != addr["zip"]])
    return fields(addr, any_form(addr)), fields(addr, any_form(addr), zip_=z)


def diff_other_city():
    here, there, state = rng.choice(NEIGHBOURS)
    city = next(c for c in CITIES if c["city"] == here)
    addr = address(lambda c, s: c is city, unit=random_unit() if rng.random() < 0.2 else None)
    a = fields(addr, any_form(addr), zip_=rng.choice(["", addr["zip"]]))
    b = (any_form(addr), there, state, "")
    return (a, b) if rng.random() < 0.5 else (b, a)


PLAN = [
    ("same", "suffix_spelling", same_suffix_spelling, 90),
    ("same", "directional_spelling", same_directional_spelling, 70),
    ("same", "unit_form", same_unit_form, 90),
    ("same", "case", same_case, 50),
    ("same", "punctuation", same_punctuation, 60),
    ("same", "zip4", same_zip4, 50),
    ("same", "missing_zip", same_missing_zip, 50),
    ("same", "whitespace", same_whitespace, 40),
    ("same", "ordinal", same_ordinal, 60),
    ("same", "highway", same_highway, 30),
    ("same", "po_box", same_po_box, 20),
    ("same", "house_fraction", same_house_fraction, 15),
    ("same", "inline_locality", same_inline_locality, 25),
    ("same", "name_abbreviation", same_name_abbreviation, 20),
    ("different", "other_number", diff_other_number, 90),
    ("different", "other_unit", diff_other_unit, 90),
    ("different", "unit_vs_none", diff_unit_vs_none, 80),
    ("different", "other_directional", diff_other_directional, 70),
    ("different", "directional_vs_none", diff_directional_vs_none, 80),
    ("different", "other_suffix", diff_other_suffix, 80),
    ("different", "other_street", diff_other_street, 80),
    ("different", "other_zip", diff_other_zip, 50),
    ("different", "other_city", diff_other_city, 30),
]

HEADER = ["label", "kind", "a_address", "a_city", "a_state", "a_zip",
          "b_address", "b_city", "b_state", "b_zip"]


def main():
    rows, seen = [], set()
    for label, kind, make, count in PLAN:
        made = 0
        while made < count:
            a, b = make()
            if a == b or (a, b) in seen:
                continue
            seen.add((a, b))
            rows.append(row(label, kind, a, b))
            made += 1
    with open("address_pairs.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(HEADER)
        writer.writerows(rows)
    print(f"{len(rows)} pairs")


if __name__ == "__main__":
    main()
