import PlantGuideCore
import Testing

@Suite("Task words: one table for the app and its notifications")
struct TaskWordsTests {
    @Test("a language tag picks its language, else English")
    func languages() {
        #expect(TaskWords.language(for: "es-MX") == "es" && TaskWords.language(for: "ES") == "es" && TaskWords.language(for: "es_AR") == "es")
        #expect(TaskWords.language(for: "en-GB") == "en" && TaskWords.language(for: "fr") == "en" && TaskWords.language(for: "") == "en")
    }

    @Test("every kind has words in every language, and a kind this build does not know is looked after")
    func everyKind() {
        for language in TaskWords.languages {
            let phrases = CareTaskKind.allCases.map { TaskWords.phrase($0, language: language) }
            #expect(Set(phrases).count == CareTaskKind.allCases.count && phrases.allSatisfy { !$0.isEmpty }, "\(language)")
        }
        #expect(TaskWords.reminder(.watering, plant: "Monty", language: "es") == "Regar Monty")
        #expect(TaskWords.reminder(.pestControl, plant: "Monty", language: "es") == "Revisar plagas de Monty")
        #expect(TaskWords.reminder(nil, plant: "Monty", language: "en") == "Look after Monty")
        #expect(TaskWords.reminder(.fertilizing, plant: "Monty", language: "de") == "Fertilise Monty")
    }
}
