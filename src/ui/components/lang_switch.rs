use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LangSwitchProps {
    pub lang: Lang,
    pub on_change: Callback<Lang>,
}

/// A group of toggle buttons, one per language, each named in its own language. The
/// name is the text the button shows (the full name, or the code on a phone), so a
/// speech user can say what they see (WCAG 2.5.3); the title has the full name.
pub fn lang_switch(props: &LangSwitchProps) -> Html {
    let t = Texts::new(props.lang);
    html! {
        <div class="lang-switch" role="group" aria-label={t.t(k::LANGUAGE)}>
            { for Lang::ALL.iter().map(|&l| {
                let on_change = props.on_change.clone();
                html! {
                    <button type="button" lang={l.code()} title={l.native_name()} aria-pressed={(l == props.lang).to_string()}
                            data-lang={l.code()}
                            onclick={Callback::from(move |_| on_change.emit(l))}>
                        <span class="lang-long">{ l.native_name() }</span>
                        <span class="lang-short">{ l.code().to_ascii_uppercase() }</span>
                    </button>
                }
            }) }
        </div>
    }
}
