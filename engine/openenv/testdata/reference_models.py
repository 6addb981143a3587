import json
from typing import Any, Dict, List, Literal, Optional, Union
from pydantic import BaseModel, ConfigDict, Field, model_validator

class Action(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)
    metadata: Dict[str, Any] = Field(default_factory=dict, description="Additional metadata for the action")

class Observation(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, arbitrary_types_allowed=True)
    done: bool = Field(default=False, description="Whether the episode has terminated")
    reward: bool | int | float | None = Field(default=None, description="Reward signal from the last action")
    metadata: Dict[str, Any] = Field(default_factory=dict, description="Additional metadata for the observation")

class State(BaseModel):
    """Base class for environment state."""
    model_config = ConfigDict(extra="allow", validate_assignment=True, arbitrary_types_allowed=True)
    episode_id: Optional[str] = Field(default=None, description="Unique identifier for the current episode")
    step_count: int = Field(default=0, ge=0, description="Number of steps taken in the current episode")

KEYS = {"ENTER","TAB","ESCAPE","BACKSPACE","CTRL+A","UP","DOWN","LEFT","RIGHT"}
class BrowserAction(Action):
    op: Literal["click","type","key","scroll","back","wait","finish"]
    x: int | None = Field(default=None, ge=0, lt=800)
    y: int | None = Field(default=None, ge=0, lt=600)
    text: str = Field(default="", max_length=2000)
    dy: int = Field(default=0, ge=-1200, le=1200)
    @model_validator(mode="after")
    def check(self):
        if self.op == "click" and (self.x is None or self.y is None): raise ValueError("click needs x and y")
        if self.op == "type" and not self.text: raise ValueError("type needs text")
        if self.op == "key" and self.text not in KEYS: raise ValueError("unsupported key")
        return self

class BrowserObservation(Observation):
    screenshot: str
    url: str
    error: str = ""
    controls: List[Dict[str, Any]] = Field(default_factory=list)
    page_text: str = ""

