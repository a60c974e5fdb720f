// Labels in Polish and English. The browser's languages pick one; the switch overrides and is remembered.

const LABELS = {
  en: {
    switchTo: "Polski",
    switchLabel: "Zmień język na polski",
    title: "Fight",
    combatants: "Combatants",
    lastRound: "Last round",
    noRoundYet: "No round has been fought yet.",
    roundLine: "Round {round} done · next: round {next}, turn {turn}",
    roundLineOver: "The fight is over after round {round}",
    roundLineStart: "Before the first round · turn {turn}",
    bleedLine: "Bleeding at the end of round {round} ({rounds})",
    bleedNow: "Bleeding at the end of the next round (round {round})",
    lastRoundTitle: "Round {round}",
    endsTurn: "This round ended turn {turn}.",
    rounds: { one: "in {n} round", other: "in {n} rounds" },
    roundsLeft: { one: "{n} round left", other: "{n} rounds left" },
    untilRemoved: "until removed",
    status: { active: "fighting", unconscious: "unconscious", dead: "dead" },
    side: "side {side}",
    you: "you",
    blood: "Blood {blood} of {vitality}",
    noWounds: "no wounds",
    penalty: "penalty −{n}",
    noPenalty: "no penalty",
    wound: {
      scratch: "scratch", light: "light wound", moderate: "moderate wound", severe: "severe wound",
      critical: "critical wound", mortal: "mortal wound",
    },
    bleedsPerTurn: "bleeds {n} a turn",
    effects: "Effects",
    effectMods: { attack: "attack", defense: "defense", initiative: "initiative", blood_per_turn: "blood a turn" },
    longAction: "Busy with {name}: {left}",
    declared: "declared",
    notDeclared: "not declared yet",
    yourDeclaration: "Your declaration for round {round}:",
    stance: { offensive: "offensive stance", balanced: "balanced stance", defensive: "defensive stance" },
    technical: "{n} technical actions",
    ownDice: "{n} dice of your own",
    act: {
      attack: "attacks {target}",
      first_aid: "gives first aid to {target}",
      custom: "does {name}",
      customOn: "does {name} on {target}",
      continue: "goes on with {name}",
      continueBare: "goes on with the long action",
      none: "does nothing",
    },
    tick: "tick {tick}",
    rollVs: "rolled {roll}, needed {target} or less",
    hitBy: "hit by {margin}",
    blow: "blow {blow}, {effective} after armour",
    result: {
      wound: "wounds", deflected: "armour held", miss: "miss", actor_down: "could not act (down)",
      target_down: "target already down", done: "done", in_progress: "under way", interrupted: "interrupted",
    },
    bleeding: "{name} bleeds {lost}: {blood} blood left, {status}",
    regains: "{name} regains {gained}: {blood} blood, {status}",
    connection: {
      connecting: "Connecting…", live: "Live", reconnecting: "Connection lost, reconnecting…",
      stopped: "Not updating",
    },
    noToken: "This link has no token. Open the link the game master gave you: it ends in #token=…",
    badToken: "This link's token is unknown, revoked or not for this fight. Ask the game master for a new link.",
    notFound: "There is no such fight, or this link is not for it.",
    failed: "Could not read the fight ({detail}). Retrying…",
    declaredFor: "Declared for round {round}:",
    finished: "This fight is over: nothing more can be declared.",
    refused: "Refused: {detail}",
    form: {
      title: "Your declaration", titleFor: "Declare for {name}",
      stance: "Stance", action: "Action",
      actions: { attack: "Attack", first_aid: "First aid", custom: "Something else", continue: "Go on with the long action", none: "Nothing" },
      target: "Target", targetN: "Target of attack {n}", sameTarget: "the same as the attack before",
      customName: "What", customDelay: "Delay", customRounds: "Rounds it takes (optional)",
      technical: "Technical actions",
      ownDice: "My own dice (optional)",
      diceHint: "Leave empty and the service rolls. Damage: one number per die, separated by spaces.",
      declare: "Declare", change: "Change the declaration", withdraw: "Withdraw",
      busy: "Sending…",
    },
    dice: {
      initiative: "{name}: delay die", attack: "{name}: attack {k} (d20)", damage: "{name}: damage of attack {k}",
      group: "Group {group}: shared delay die",
    },
    gm: {
      console: "Game master's console",
      notDeclared: "Not declared yet: {names}", allDeclared: "Everyone fighting has declared.",
      resolve: "Resolve round {round}", typedDice: "Dice typed in (optional)",
      undo: "Undo round {round}", undoConfirm: "Undo round {round}?",
      roster: "Add a character", rosterPick: "— choose a character —", busyIn: "in another fight",
      bestiary: "Add creatures", bestiaryPick: "— choose a creature —", count: "How many",
      finish: "Finish the fight", finishConfirm: "Finish the fight? The characters keep their wounds.",
      hidden: "hidden", hide: "Hide", reveal: "Reveal", hideLabel: "Hide {name}", revealLabel: "Reveal {name}",
      effect: "Put on an effect", effectName: "Name", effectRounds: "Rounds (empty: until removed)",
      addEffect: "Put on", removeEffect: "Remove {name}",
      link: "Player's link", linkFor: "Link for {name}'s player",
      done: "Done.",
    },
    unknown: "someone",
    charts: {
      odds: "Chance to win by round (%)",
      blood: "Blood by round",
      round: "Round",
      computing: "Calculating the odds…",
      failed: "The odds could not be read just now; trying again.",
    },
  },
  pl: {
    switchTo: "English",
    switchLabel: "Switch the language to English",
    title: "Walka",
    combatants: "Walczący",
    lastRound: "Ostatnia runda",
    noRoundYet: "Nie rozegrano jeszcze żadnej rundy.",
    roundLine: "Runda {round} rozegrana · następna: runda {next}, tura {turn}",
    roundLineOver: "Walka skończona po rundzie {round}",
    roundLineStart: "Przed pierwszą rundą · tura {turn}",
    bleedLine: "Krwawienie na końcu rundy {round} ({rounds})",
    bleedNow: "Krwawienie na końcu następnej rundy (runda {round})",
    lastRoundTitle: "Runda {round}",
    endsTurn: "Ta runda zakończyła turę {turn}.",
    rounds: { one: "za {n} rundę", few: "za {n} rundy", many: "za {n} rund", other: "za {n} rundy" },
    roundsLeft: { one: "została {n} runda", few: "zostały {n} rundy", many: "zostało {n} rund", other: "zostało {n} rundy" },
    untilRemoved: "do odwołania",
    status: { active: "walczy", unconscious: "nieprzytomny", dead: "martwy" },
    side: "strona {side}",
    you: "ty",
    blood: "Krew {blood} z {vitality}",
    noWounds: "bez ran",
    penalty: "kara −{n}",
    noPenalty: "bez kary",
    wound: {
      scratch: "draśnięcie", light: "lekka rana", moderate: "średnia rana", severe: "ciężka rana",
      critical: "krytyczna rana", mortal: "śmiertelna rana",
    },
    bleedsPerTurn: "krwawi {n} na turę",
    effects: "Efekty",
    effectMods: { attack: "atak", defense: "obrona", initiative: "inicjatywa", blood_per_turn: "krew na turę" },
    longAction: "Zajęty: {name}, {left}",
    declared: "zadeklarował",
    notDeclared: "jeszcze bez deklaracji",
    yourDeclaration: "Twoja deklaracja na rundę {round}:",
    stance: { offensive: "postawa ofensywna", balanced: "postawa zrównoważona", defensive: "postawa defensywna" },
    technical: "akcje techniczne: {n}",
    ownDice: "własne kości: {n}",
    act: {
      attack: "atakuje: {target}",
      first_aid: "opatruje: {target}",
      custom: "wykonuje: {name}",
      customOn: "wykonuje: {name} na {target}",
      continue: "kontynuuje: {name}",
      continueBare: "kontynuuje długą akcję",
      none: "nic nie robi",
    },
    tick: "segment {tick}",
    rollVs: "rzut {roll}, potrzeba {target} lub mniej",
    hitBy: "trafienie o {margin}",
    blow: "cios {blow}, po pancerzu {effective}",
    result: {
      wound: "rani", deflected: "pancerz zatrzymał", miss: "pudło", actor_down: "nie mógł działać (leży)",
      target_down: "cel już leży", done: "zrobione", in_progress: "w toku", interrupted: "przerwane",
    },
    bleeding: "{name} traci {lost} krwi: zostało {blood}, {status}",
    regains: "{name} odzyskuje {gained} krwi: ma {blood}, {status}",
    connection: {
      connecting: "Łączenie…", live: "Na żywo", reconnecting: "Połączenie zerwane, łączę ponownie…",
      stopped: "Bez aktualizacji",
    },
    noToken: "Ten link nie ma tokenu. Otwórz link od mistrza gry: kończy się na #token=…",
    badToken: "Token z tego linku jest nieznany, odwołany albo nie do tej walki. Poproś mistrza gry o nowy link.",
    notFound: "Nie ma takiej walki albo ten link jej nie dotyczy.",
    failed: "Nie udało się odczytać walki ({detail}). Próbuję ponownie…",
    declaredFor: "Deklaracja na rundę {round}:",
    finished: "Ta walka się skończyła: nie można już niczego deklarować.",
    refused: "Odmowa: {detail}",
    form: {
      title: "Twoja deklaracja", titleFor: "Deklaracja za: {name}",
      stance: "Postawa", action: "Akcja",
      actions: { attack: "Atak", first_aid: "Pierwsza pomoc", custom: "Coś innego", continue: "Kontynuuj długą akcję", none: "Nic" },
      target: "Cel", targetN: "Cel ataku {n}", sameTarget: "ten sam co w poprzednim ataku",
      customName: "Co", customDelay: "Opóźnienie", customRounds: "Ile rund trwa (opcjonalnie)",
      technical: "Akcje techniczne",
      ownDice: "Moje własne kości (opcjonalnie)",
      diceHint: "Zostaw puste, a rzuci serwis. Obrażenia: jedna liczba na kość, oddzielone spacjami.",
      declare: "Deklaruję", change: "Zmień deklarację", withdraw: "Wycofaj",
      busy: "Wysyłam…",
    },
    dice: {
      initiative: "{name}: kość opóźnienia", attack: "{name}: atak {k} (k20)", damage: "{name}: obrażenia ataku {k}",
      group: "Grupa {group}: wspólna kość opóźnienia",
    },
    gm: {
      console: "Konsola mistrza gry",
      notDeclared: "Jeszcze bez deklaracji: {names}", allDeclared: "Wszyscy walczący zadeklarowali.",
      resolve: "Rozegraj rundę {round}", typedDice: "Wpisane kości (opcjonalnie)",
      undo: "Cofnij rundę {round}", undoConfirm: "Cofnąć rundę {round}?",
      roster: "Dodaj postać", rosterPick: "— wybierz postać —", busyIn: "w innej walce",
      bestiary: "Dodaj stwory", bestiaryPick: "— wybierz stwora —", count: "Ile",
      finish: "Zakończ walkę", finishConfirm: "Zakończyć walkę? Postacie zachowają swoje rany.",
      hidden: "ukryty", hide: "Ukryj", reveal: "Odkryj", hideLabel: "Ukryj: {name}", revealLabel: "Odkryj: {name}",
      effect: "Nałóż efekt", effectName: "Nazwa", effectRounds: "Rundy (puste: do odwołania)",
      addEffect: "Nałóż", removeEffect: "Usuń: {name}",
      link: "Link dla gracza", linkFor: "Link dla gracza postaci {name}",
      done: "Zrobione.",
    },
    unknown: "ktoś",
    charts: {
      odds: "Szansa na wygraną po rundach (%)",
      blood: "Krew po rundach",
      round: "Runda",
      computing: "Liczę szanse…",
      failed: "Nie udało się teraz odczytać szans; próbuję ponownie.",
    },
  },
};

const STORAGE_KEY = "table.language";

export function pickLanguage() {
  const stored = safeStorage(() => localStorage.getItem(STORAGE_KEY));
  if (stored in LABELS) return stored;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const primary = String(tag).toLowerCase().split("-")[0];
    if (primary in LABELS) return primary;
  }
  return "en";
}

export function rememberLanguage(language) {
  safeStorage(() => localStorage.setItem(STORAGE_KEY, language));
}

export function otherLanguage(language) {
  return language === "pl" ? "en" : "pl";
}

// A private window or a locked-down browser may refuse storage: the page still works without it.
function safeStorage(action) {
  try {
    return action();
  } catch {
    return null;
  }
}

function fill(template, vars) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

// translator(language)(key, vars): "a.b" looks up nested labels; a {one, few, ...} label takes vars.n.
export function translator(language) {
  const labels = LABELS[language];
  const rules = new Intl.PluralRules(language);
  return function t(key, vars = {}) {
    let value = labels;
    for (const part of key.split(".")) value = value == null ? undefined : value[part];
    if (value == null) return null;
    if (typeof value === "object") value = value[rules.select(vars.n)] ?? value.other;
    return fill(value, vars);
  };
}
