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
import re


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
    number = street.get("number") or str(rng.choices(
        [rng.randint(1, 99), rng.randint(100, 999), rng.randint(1000, 9999), rng.randint(10000, 24999)],
        weights=[2, 4, 4, 1])[0])
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


# ---- Real streets by city ----
# "City, ST: zips (other spellings of the city)", then its streets: "pre/name/suffix/post" with
# C1 standard suffixes; "@J" is a lettered avenue (Avenue J); "=Hwy 71|Highway 71 >W" one
# numbered road in its written forms, with a postdirectional; "*" marks Queens-style hyphenated
# house numbers, "^" Wisconsin grid numbers (N89W16785).
STREETS = """
New York, NY: 10001 10011 10025 10027 10009
    W/34th/ST; /5th/AVE; /Broadway; E/86th/ST; /Park/AVE; /Amsterdam/AVE; W/125th/ST;
    /Riverside/DR; E/Houston/ST; /Lexington/AVE; @C; @B; /Park/AVE/S; /Saint Marks/PL;
    /7th/AVE/S;
Brooklyn, NY: 11201 11215 11230 11229
    @J; @U; @N; /Ocean/PKWY; /Flatbush/AVE; /7th/AVE; /Atlantic/AVE; /Bedford/AVE; /Court/ST;
Astoria, NY: 11102 11103 11105 11106
    */21st/ST; */Ditmars/BLVD; */31st/AVE; */Steinway/ST;
Jackson Heights, NY: 11372
    */37th/AVE; */74th/ST; */Roosevelt/AVE;
Chicago, IL: 60601 60607 60614 60616 60637
    N/Michigan/AVE; W/Madison/ST; S/State/ST; N/Clark/ST; W/Fullerton/AVE; S/Wacker/DR;
    N/Lake Shore/DR; W/63rd/ST; S/Martin Luther King/DR; N/Milwaukee/AVE; S/Halsted/ST;
Washington, DC: 20001 20002 20003 20009 20011
    /Pennsylvania/AVE/NW; /N/ST/NW; /Massachusetts/AVE/NE; /K/ST/NW; /16th/ST/NW;
    /Constitution/AVE/NW; E/Capitol/ST/NE; /Rhode Island/AVE/NE; /Georgia/AVE/NW; /E/ST/SE;
    /14th/ST/NW;
Atlanta, GA: 30303 30308 30309 30312 30318
    /Peachtree/ST/NE; /Ponce de Leon/AVE/NE; /Piedmont/AVE/NE; /10th/ST/NW; /Memorial/DR/SE;
    /Howell Mill/RD/NW;
Salt Lake City, UT: 84101 84102 84111 84105
    S/300//W; E/400//S; S/State/ST; S/Main/ST; E/900//S; E/1300//S;
Los Angeles, CA: 90012 90028 90036 90046 90026
    /Sunset/BLVD; W/3rd/ST; S/Broadway; /Wilshire/BLVD; N/Fairfax/AVE; /Hollywood/BLVD;
    S/Figueroa/ST; /Echo Park/AVE; S/La Brea/AVE;
San Francisco, CA: 94102 94109 94110 94115 94117
    /O'Farrell/ST; /Market/ST; /Mission/ST; /Van Ness/AVE; /Valencia/ST; /Geary/BLVD; /24th/ST;
    /Lombard/ST; /Haight/ST; /Divisadero/ST;
Seattle, WA: 98101 98103 98109 98122 98115
    /Pike/ST; NE/45th/ST; /Aurora/AVE/N; /15th/AVE/E; /Rainier/AVE/S; SW/Alaska/ST;
    NW/Market/ST; /Roosevelt/WAY/NE;
Portland, OR: 97201 97205 97209 97214 97211
    SE/Hawthorne/BLVD; NW/23rd/AVE; SW/Broadway; NE/Alberta/ST; N/Williams/AVE; SE/Division/ST;
Austin, TX: 78701 78702 78704 78745 78751
    /Congress/AVE; S/Lamar/BLVD; E/6th/ST; W/Slaughter/LN; /Burnet/RD; /Manchaca/RD;
    E/Cesar Chavez/ST; =Hwy 71|Highway 71|HWY. 71|Hiway 71 >W; /Airport/BLVD; W/38th/ST;
    =N IH 35|N I-35|N Interstate 35|North IH-35|N Interstate Hwy 35;
Houston, TX: 77002 77006 77019 77056 77007
    /Westheimer/RD; /Main/ST; /Richmond/AVE; /Montrose/BLVD; /Washington/AVE; /Allen/PKWY;
    W/11th/ST; /Heights/BLVD;
Spring, TX: 77379 77388
    =FM 2920|Farm to Market Road 2920|F.M. 2920|Farm To Market 2920; =Louetta Rd|Louetta Road;
Dallas, TX: 75201 75204 75219 75206
    /Main/ST; /Ross/AVE; /McKinney/AVE; N/Central/EXPY; /Cedar Springs/RD; /Greenville/AVE;
San Antonio, TX: 78205 78209 78212 78215
    /Broadway; N/Saint Marys/ST; /Fredericksburg/RD; =Loop 410|LOOP 410; S/Alamo/ST;
    E/Commerce/ST;
Bastrop, TX: 78602
    =County Road 304|CR 304|Co Rd 304|County Rd 304|Cnty Rd 304|CR-304;
    =FM 969|Farm to Market Road 969|FM Road 969;
    =State Highway 21|State Hwy 21|SH 21|St Hwy 21 >E; /Chestnut/ST;
Phoenix, AZ: 85003 85004 85012 85016 85008
    N/Central/AVE; E/Camelback/RD; W/Indian School/RD; N/7th/ST; E/McDowell/RD; N/24th/ST;
    N/16th/ST;
Flagstaff, AZ: 86001 86004
    =Route 66|Rte 66|RTE. 66|ROUTE 66; N/San Francisco/ST; E/Butler/AVE;
Denver, CO: 80202 80203 80205 80218 80210
    /Larimer/ST; E/Colfax/AVE; /17th/ST; /Speer/BLVD; S/Broadway; /York/ST; N/Federal/BLVD;
Miami, FL: 33130 33131 33137 33142 33125
    NW/7th/AVE; SW/8th/ST; /Biscayne/BLVD; /Brickell/AVE; NE/2nd/AVE; NW/36th/ST; SW/27th/AVE;
    =State Road 7|SR 7|State Rd 7|State Route 7;
Boston, MA: 02108 02110 02116 02118 02215
    /Beacon/ST; /Commonwealth/AVE; /Tremont/ST; /Boylston/ST; /Massachusetts/AVE;
    /Washington/ST; /Dorchester/AVE; /Saint Botolph/ST;
Philadelphia, PA: 19103 19106 19107 19147 19125
    /Market/ST; S/Broad/ST; /Chestnut/ST; /Walnut/ST; /Spring Garden/ST; N/5th/ST;
    /Germantown/AVE; E/Passyunk/AVE; /Frankford/AVE;
Baltimore, MD: 21201 21202 21224 21231 21218
    N/Charles/ST; E/Fayette/ST; /Eastern/AVE; S/Broadway; W/Pratt/ST; /Greenmount/AVE;
Minneapolis, MN: 55401 55403 55408 55405
    /Hennepin/AVE; /Nicollet/MALL; /Lyndale/AVE/S; E/Lake/ST; W/Lagoon/AVE; E/Franklin/AVE;
Burnsville, MN: 55337 55306
    =County Road 42|County Rd 42|CR 42|Co Rd 42 >W; /Nicollet/AVE; /Burnsville/PKWY;
St. Louis, MO: 63101 63103 63104 63110 63118 (Saint Louis|St Louis|ST. LOUIS|saint louis)
    /Washington/AVE; S/Grand/BLVD; /Market/ST; /Lafayette/AVE; /Manchester/AVE; S/Jefferson/AVE;
St. Paul, MN: 55101 55102 55104 55105 (Saint Paul|St Paul|ST PAUL)
    /University/AVE/W; /Grand/AVE; W/7th/ST; /Summit/AVE; /Selby/AVE;
New Orleans, LA: 70112 70116 70130 70115
    /Saint Charles/AVE; /Magazine/ST; /Decatur/ST; /Esplanade/AVE; N/Rampart/ST; /Canal/ST;
    /Tchoupitoulas/ST; /Saint Claude/AVE;
Nashville, TN: 37203 37206 37208 37212
    /Broadway; /Music/SQ/E; /Charlotte/PIKE; /Gallatin/PIKE; /Hillsboro/PIKE; /21st/AVE/S;
    /12th/AVE/S;
Memphis, TN: 38103 38104 38111 38117
    /Beale/ST; /Union/AVE; /Poplar/AVE; /Summer/AVE; /Elvis Presley/BLVD; S/Highland/ST;
Detroit, MI: 48201 48207 48226 48208
    /Woodward/AVE; /Gratiot/AVE; W/Grand/BLVD; E/Jefferson/AVE; /Michigan/AVE; W/Vernor/HWY;
Cleveland, OH: 44103 44113 44114 44102
    /Euclid/AVE; /Superior/AVE/E; /Lorain/AVE; W/25th/ST; E/55th/ST; /Detroit/AVE;
Dublin, OH: 43016 43017
    =State Route 161|SR 161|State Rte 161|St Rt 161|State Road 161 >W; W/Dublin Granville/RD;
    W/Bridge/ST;
Columbus, OH: 43201 43205 43215 43206
    N/High/ST; E/Broad/ST; S/4th/ST; /Parsons/AVE;
Cincinnati, OH: 45202 45206 45219 45220
    /Vine/ST; /Reading/RD; /Madison/RD; /Elm/ST; /Central/PKWY;
Pittsburgh, PA: 15212 15213 15222 15203
    /Forbes/AVE; /Liberty/AVE; /Penn/AVE; /5th/AVE; /Murray/AVE; E/Carson/ST;
Charlotte, NC: 28202 28203 28204 28205
    S/Tryon/ST; N/Tryon/ST; /Providence/RD; /Central/AVE; /The/PLZ; /Kings/DR;
Winston-Salem, NC: 27101 27103 27104 (Winston Salem|WINSTON-SALEM|winston salem)
    N/Main/ST; /Reynolda/RD; /Stratford/RD; W/4th/ST;
Las Vegas, NV: 89101 89104 89109 89119
    /Las Vegas/BLVD/S; E/Fremont/ST; S/Maryland/PKWY; W/Sahara/AVE; E/Tropicana/AVE;
Albuquerque, NM: 87102 87106 87108 87110
    /Central/AVE/NE; /Central/AVE/SW; /Lomas/BLVD/NE; /4th/ST/NW; /San Mateo/BLVD/NE;
Kansas City, MO: 64105 64108 64111 64109
    /Main/ST; /Grand/BLVD; /Troost/AVE; W/39th/ST; /Broadway/BLVD;
Omaha, NE: 68102 68105 68131 68106
    /Farnam/ST; /Dodge/ST; /Leavenworth/ST; N/30th/ST; S/24th/ST; /Saddle Creek/RD;
Milwaukee, WI: 53202 53204 53212 53207
    N/Water/ST; W/Wisconsin/AVE; E/Brady/ST; S/Kinnickinnic/AVE; N/Martin Luther King/DR;
Menomonee Falls, WI: 53051
    ^/Appleton/AVE; ^/Main/ST; =County Road Q|County Rd Q|Co Rd Q;
Honolulu, HI: 96813 96815 96822 96826
    /Kalakaua/AVE; S/King/ST; /Kapiolani/BLVD; /Ala Moana/BLVD; S/Beretania/ST;
Anchorage, AK: 99501 99503 99508
    W/4th/AVE; E/Northern Lights/BLVD; /C/ST; /Spenard/RD; /Muldoon/RD;
Lancaster, CA: 93534 93535 93536
    @J; @K; @I; /Sierra/HWY; W/Lancaster/BLVD;
Fort Worth, TX: 76102 76104 76107 76110 (Ft. Worth|Ft Worth|FORT WORTH)
    W/Magnolia/AVE; /Main/ST; /Camp Bowie/BLVD; W/7th/ST; /Hemphill/ST;
Tucson, AZ: 85701 85705 85719
    E/Speedway/BLVD; N/Stone/AVE; E/Congress/ST; N/Campbell/AVE;
Boise, ID: 83702 83705 83706
    W/Main/ST; S/Capitol/BLVD; N/Harrison/BLVD; E/Warm Springs/AVE;
Providence, RI: 02903 02906 02908
    /Westminster/ST; /Thayer/ST; /Atwells/AVE; /Hope/ST; /Broad/ST;
Hartford, CT: 06103 06105 06106
    /Main/ST; /Farmington/AVE; /Asylum/ST; /Prospect/AVE; /Oak/CT;
Burlington, VT: 05401 05408
    /Church/ST; /Pearl/ST; /North/AVE; /Main/ST;
Des Moines, IA: 50309 50312 50314
    /Grand/AVE; /Ingersoll/AVE; /Locust/ST; /Martin Luther King Jr/PKWY; /Court/AVE;
Oklahoma City, OK: 73102 73103 73118
    N/Classen/BLVD; NW/23rd/ST; N/Western/AVE; W/Reno/AVE;
Bend, OR: 97701 97702
    NW/Wall/ST; NW/Bond/ST; =US Hwy 20|US Highway 20|U.S. Highway 20|US 20|US Route 20|US-20;
    NE/Greenwood/AVE;
Franklin, TN: 37064 37067 37069
    /Hillsboro/RD; /Lewisburg/PIKE; /Main/ST; /Mallory/LN; /Cool Springs/BLVD;
Mount Pleasant, SC: 29464 29466 (Mt. Pleasant|Mt Pleasant|MOUNT PLEASANT)
    /Coleman/BLVD; /Johnnie Dodds/BLVD; /Shem/DR;
"""


def parse_street(spec):
    flags = {"queens": spec.startswith("*"), "grid": spec.startswith("^")}
    spec = spec.lstrip("*^")
    if spec.startswith("@"):
        letter = spec[1:]
        forms = [f"Avenue {letter}", f"Ave {letter}", f"Ave. {letter}", f"AV {letter}"]
        return {"kind": "route", "forms": forms, "name": forms[0], "letter": letter}
    if spec.startswith("="):
        forms, _, post = spec[1:].partition(" >")
        forms = forms.split("|")
        return {"kind": "route", "forms": forms, "post": post or None, "name": forms[0], "road": True}
    pre, name, suffix, post = (spec.split("/") + ["", "", ""])[:4]
    street = {"name": name, "suffix": suffix or None, "pre": pre or None, "post": post or None}
    ordinal = re.fullmatch(r"(\d+)(st|nd|rd|th)", name)
    if ordinal:
        street["ord"] = int(ordinal.group(1))
    street.update({k: v for k, v in flags.items() if v})
    return street


def parse_cities(text):
    cities = []
    for line in text.strip().splitlines():
        if not line.startswith(" "):
            head, zips = line.split(": ")
            alt = re.search(r"\((.*)\)", zips)
            city, state = head.rsplit(", ", 1)
            cities.append({"city": city, "state": state, "zips": zips.split(" (")[0].split(),
                           "streets": []})
            if alt:
                cities[-1]["alt_city"] = alt.group(1).split("|")
        else:
            cities[-1]["streets"] += [parse_street(x.strip()) for x in line.split(";") if x.strip()]
    return cities


CITIES = parse_cities(STREETS)

# Streets that differ from another by a letter or a word: near misses for `other_street`.
NEAR_NAMES = [("Main", "Maine"), ("Oak", "Oakland"), ("Elm", "Elmwood"), ("Pine", "Pines"),
              ("Cedar", "Cedars"), ("Park", "Parkside"), ("Lake", "Lakes"), ("Hill", "Hills"),
              ("Washington", "Washburn"), ("Lincoln", "Lincolnshire"), ("Grand", "Granada"),
              ("Madison", "Madison Park"), ("Center", "Centre Hall"), ("Maple", "Maplewood"),
              ("Spring", "Springs"), ("Church", "Churchill"), ("Mill", "Millers"),
              ("Forest", "Forest Hill"), ("High", "Highland"), ("Union", "Unity"),
              ("Cherry", "Cherry Hill"), ("Walnut", "Walnut Grove")]

# Towns where rural route boxes are still in use.
RURAL = ["Bastrop", "Franklin", "Flagstaff", "Bend", "Menomonee Falls", "Burnsville", "Spring"]

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


def common(n):
    """An index into a list of written forms, the first (most common) ones likelier."""
    return rng.choices(range(n), weights=[max(1, 6 - 2 * k) for k in range(n)])[0]


def any_form(addr, **over):
    """One written form picked at random: suffix, directional and unit spellings, case."""
    opts = dict(sfx=common(5), dirs=common(4), unit_style=rng.randrange(12),
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
    i = common(n)
    j = (i + 1 + common(n - 1)) % n
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
    z = rng.choice([f"{addr['zip']}-{plus}", f"{addr['zip']}{plus}", f"{addr['zip']}-{plus}",
                    f"{addr['zip']} {plus}"])
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
    rural = rng.random() < 0.25
    city, _ = pick(lambda c, s: not rural or c["city"] in RURAL)
    n = str(rng.choice([rng.randint(1, 999), rng.randint(1000, 99999)]))
    if not rural:
        forms = [f"PO Box {n}", f"P.O. Box {n}", f"P O Box {n}", f"Post Office Box {n}",
                 f"PO BOX {n}", f"Box {n}", f"POB {n}", f"P.O. BOX #{n}", f"po box {n}"]
    else:
        r = rng.randint(1, 9)
        n = str(rng.randint(1, 400))
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
        # Not "3315" for "33-15": in Queens that is the same house with its hyphen dropped,
        # elsewhere it may be another, so neither label would be honest.
        return f"{a}-{int(b) + rng.choice([1, 2, 10]):02d}"
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
        return parse_street("@" + letter)
    if street.get("road"):
        body = street["forms"][0]
        head, number = body.rsplit(" ", 1)
        if number.isdigit():
            new = rng.choice([number[::-1] if number[::-1] != number else number + "1",
                              str(int(number) + 1), number + "0"])
        else:
            new = chr(ord(number[0]) + 1)
        post = street.get("post")
        return parse_street(f"={head} {new}" + (f" >{post}" if post else ""))
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
